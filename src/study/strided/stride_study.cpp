// The stride study (issue 13, study 1; seed 001, 3.4.1): throughput and latency of warp
// requests whose lanes are `stride` elements apart, for every memory space, element size and
// stride from 1 to 64, with every SM busy. Where each curve stops falling names the
// granularity the space moves data in (sector, line, bank row).
#include <cmath>

#include "model/units.hpp"
#include "study/strided/curve.hpp"
#include "study/strided/strided_common.hpp"
#include "study/studies.hpp"

namespace memtopo::study {
namespace {

constexpr std::uint32_t kStrides[] = {1, 2, 4, 8, 16, 32, 64};
// Global paths and textures: an array the L2 holds on any recent GPU, larger than an L1.
constexpr std::uint64_t kGlobalFootprintBytes = std::uint64_t{8} << 20;
// The constant bank's size; shared memory: each block's window (a 64-stride request of 16 B
// elements spans 31 KiB).
constexpr std::uint64_t kConstantFootprintBytes = 64 * 1024;
constexpr std::uint64_t kSharedFootprintBytes = 32 * 1024;
constexpr std::uint32_t kBlocksPerSm = 4;
constexpr std::uint32_t kThreadsPerBlock = 256;
constexpr std::uint32_t kRequestsPerWarp = 256;
constexpr std::uint32_t kTimedLaunches = 5;
constexpr std::uint32_t kLatencyRequests = 64;

StridedAccessSpec stride_spec(AccessSpace space, std::uint32_t element, std::uint32_t stride) {
  StridedAccessSpec spec;
  spec.space = space;
  spec.element_bytes = element;
  spec.stride_elements = stride;
  spec.footprint_bytes = space == AccessSpace::constant ? kConstantFootprintBytes
                         : space == AccessSpace::shared ? kSharedFootprintBytes
                                                        : kGlobalFootprintBytes;
  spec.blocks_per_sm = kBlocksPerSm;
  spec.threads_per_block = kThreadsPerBlock;
  spec.requests_per_warp = kRequestsPerWarp;
  spec.timed_launches = kTimedLaunches;
  spec.latency_requests = kLatencyRequests;
  return spec;
}

std::vector<Column> stride_columns() {
  return {
      {"element_bytes", "bytes", ColumnRole::parameter, ""},
      {"stride_elements", "", ColumnRole::parameter, ""},
      {"lane_distance", "bytes", ColumnRole::parameter, ""},
      {"units_per_request", "", ColumnRole::predicted,
       "distinct sectors (lines where unsectored; bank passes for shared) the 32 lanes touch, "
       "at the topology's granularity"},
      {"throughput", "bytes/second", ColumnRole::measured,
       "useful bytes (what the lanes asked for) per second, every SM busy; p50 of the timed "
       "launches"},
      {"ratio_to_stride_1", "", ColumnRole::derived, "throughput over stride 1's"},
      {"latency", "cycles", ColumnRole::measured,
       "one warp alone, dependent requests after a warm pass; p50, timing overhead removed"},
  };
}

// The granularity a space's predictions rest on: the first level's sector (its line where it
// has no sector), or for shared memory a bank row (banks x bank width).
Granularity space_granularity(const StudyContext& context, AccessSpace space) {
  const std::string element = first_level_element(space);
  if (space == AccessSpace::shared) {
    const Granularity banks = topology_granularity(context, element, "banks");
    const Granularity width = topology_granularity(context, element, "bank_width");
    if (banks.bytes && width.bytes) {
      return {*banks.bytes * *width.bytes, banks.source + ", " + width.source, banks.confidence};
    }
    return {std::nullopt, banks.bytes ? width.source : banks.source, std::nullopt};
  }
  Granularity sector = topology_granularity(context, element, "sector");
  if (sector.bytes) return sector;
  Granularity line = topology_granularity(context, element, "line");
  return line.bytes ? line : sector;
}

double units_at(const StridedAccessSpec& spec, double granularity) {
  const auto offsets = lane_offsets(spec, 0);
  return units_touched(offsets, spec.element_bytes, static_cast<std::uint32_t>(granularity));
}

// Where the curve of one element size stops falling, and why.
void add_finding(StudyResult& result, const std::string& table, AccessSpace space,
                 std::uint32_t element, const std::vector<CurvePoint>& curve,
                 const Granularity& granularity) {
  const std::optional<std::size_t> knee = plateau_start(curve);
  if (!knee) return;
  const auto stride = static_cast<std::uint32_t>(curve[*knee].x);
  const double measured_granularity = static_cast<double>(stride) * element;
  std::vector<double> units;
  for (const CurvePoint& point : curve) {
    units.push_back(units_at(stride_spec(space, element, static_cast<std::uint32_t>(point.x)),
                             measured_granularity));
  }
  Confidence confidence{model_agreement(curve, units)};
  Finding finding;
  finding.table = table;
  finding.at = {{"element_bytes", element}, {"stride_elements", stride}};
  finding.what = std::string(to_string(space)) + ", " + std::to_string(element) +
                 " B elements: throughput falls up to stride " + std::to_string(stride) +
                 " and stays flat from there";
  finding.why = "from " + format_bytes(measured_granularity) +
                " between lanes each lane's element needs a " + format_bytes(measured_granularity) +
                (space == AccessSpace::shared ? " bank row of its own"
                                              : " unit of its own (one sector per lane)");
  if (granularity.bytes) {
    confidence *= methods_agreeing(*granularity.bytes == measured_granularity ? 1 : 0, 1,
                                   "the topology's granularity equals the curve's");
    finding.tied_to = granularity.source;
  } else {
    finding.tied_to = granularity.source;
  }
  finding.confidence = confidence.value();
  result.findings.push_back(std::move(finding));
}

void run_space(StudyContext& context, StudyResult& result, AccessSpace space,
               std::vector<std::string>& trace_rows) {
  const Granularity granularity = space_granularity(context, space);
  Table table{"stride_" + std::string(to_string(space)),
              "Stride: " + std::string(to_string(space)) + " (" + first_level_element(space) + ")",
              stride_columns(),
              {}};
  std::string skipped;
  for (std::uint32_t element : kStridedElementBytes) {
    std::vector<CurvePoint> curve;
    std::optional<double> first;
    for (std::uint32_t stride : kStrides) {
      context.check_interrupt();
      const StridedAccessSpec spec = stride_spec(space, element, stride);
      const StridedMeasurement measured = measure_strided(context, spec);
      if (!measured.skipped.empty()) skipped = measured.skipped;
      append_trace_rows(trace_rows,
                        std::string(to_string(space)) + "/" + std::to_string(element) + "B/s" +
                            std::to_string(stride),
                        measured);
      Cell throughput = cell_or_missing(measured.bytes_per_second, measured.skipped);
      Cell ratio = missing_cell("no throughput");
      if (throughput.value.is_number()) {
        const double value = throughput.value.get<double>();
        if (!first) first = value;
        ratio = number_cell(value / *first);
        curve.push_back({static_cast<double>(stride), value});
      }
      table.rows.push_back({number_cell(element), number_cell(stride),
                            number_cell(static_cast<double>(stride) * element),
                            granularity.bytes ? number_cell(units_at(spec, *granularity.bytes))
                                              : missing_cell("not measured: " + granularity.source),
                            throughput, ratio,
                            cell_or_missing(measured.latency_cycles, measured.skipped)});
    }
    if (curve.size() == std::size(kStrides)) {
      add_finding(result, table.id, space, element, curve, granularity);
    }
  }
  if (!skipped.empty()) {
    result.notes.push_back(std::string(to_string(space)) + ": not measured here: " + skipped);
  }
  result.tables.push_back(std::move(table));
}

void run_stride(StudyContext& context, StudyResult& result) {
  strided_runner(context);  // skips the study where no strided request can run at all
  result.parameters = {
      {"strides_elements", kStrides},          {"element_bytes", kStridedElementBytes},
      {"blocks_per_sm", kBlocksPerSm},         {"threads_per_block", kThreadsPerBlock},
      {"requests_per_warp", kRequestsPerWarp}, {"timed_launches", kTimedLaunches},
      {"latency_requests", kLatencyRequests},  {"global_footprint_bytes", kGlobalFootprintBytes}};
  std::vector<std::string> trace_rows;
  for (AccessSpace space : kAllAccessSpaces) {
    context.phases.run(std::string(to_string(space)), [&] {
      context.progress("stride: " + std::string(to_string(space)));
      run_space(context, result, space, trace_rows);
    });
  }
  if (context.traces) context.traces->write("samples", kStridedTraceHeader, trace_rows);
}

}  // namespace

Study stride_study() {
  return Study{
      .id = "stride",
      .title = "throughput and latency against access stride, for every memory space",
      .needs = "a CUDA GPU, or a simulated device (throughput needs its throughput model)",
      .run = run_stride,
  };
}

}  // namespace memtopo::study
