// The stride study (issue 13, study 1; study 001, 3.4.1): throughput and latency of warp
// requests whose lanes are `stride` elements apart, for every memory space, element size and
// stride from 1 to 64, with every SM busy. Which granularity each curve follows (sector, line,
// bank row), and where it falls, is fitted by study/strided/curve.hpp.
#include <algorithm>
#include <cmath>

#include "model/units.hpp"
#include "study/strided/curve.hpp"
#include "study/strided/strided_common.hpp"
#include "study/studies.hpp"

namespace memtopo::study {
namespace {

constexpr std::uint32_t kStrides[] = {1, 2, 4, 8, 16, 32, 64};
// Constant and local memory also run stride 0, every lane the same element: the constant cache
// broadcasts one address and serialises distinct ones; local memory interleaves the threads'
// arrays, so only the same index in every thread is one contiguous access.
constexpr std::uint32_t kSharedAddressStride = 0;
// Global paths and textures: an array the L2 holds on any recent GPU, larger than an L1.
constexpr std::uint64_t kGlobalFootprintBytes = std::uint64_t{8} << 20;
// Shared memory: each block's window (a 64-stride request of 16 B elements spans 31 KiB).
// Constant memory: the whole constant bank (kConstantBankBytes, 64 KiB: 2 requests at stride
// 64 of 16 B elements, 512 at stride 1 of 4 B). Local memory: each thread's array of
// kLocalArrayElements elements (8, 16 or 32 KiB per thread).
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
  spec.footprint_bytes = space == AccessSpace::constant ? kConstantBankBytes
                         : space == AccessSpace::shared ? kSharedFootprintBytes
                         : space == AccessSpace::local
                             ? std::uint64_t{kLocalArrayElements} * element
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
       "at the topology's granularity; const: distinct addresses (one constant-cache pass "
       "each); local: sectors in the hardware's layout (4-byte words of a warp's threads side "
       "by side)"},
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
// Not measured: the missing finding's source says which.
Granularity space_granularity(const StudyContext& context, AccessSpace space) {
  const std::vector<Granularity> measured = measured_granularities(context, space);
  if (!measured.empty()) return measured.front();  // the sector before the line
  const std::string element = first_level_element(space);
  if (space != AccessSpace::shared) return topology_granularity(context, element, "sector");
  const Granularity banks = topology_granularity(context, element, "banks");
  const Granularity width = topology_granularity(context, element, "bank_width");
  return {std::nullopt, banks.bytes ? width.source : banks.source, std::nullopt, "bank row"};
}

bool runs_shared_address(AccessSpace space) {
  return space == AccessSpace::constant || space == AccessSpace::local;
}

// What one request moves at `granularity`: sectors (lines, bank rows), constant-cache passes.
double units_at(const StridedAccessSpec& spec, double granularity) {
  const auto offsets = lane_offsets(spec, 0);
  const auto unit = static_cast<std::uint32_t>(granularity);
  switch (spec.space) {
    case AccessSpace::constant:
      return units_touched(offsets, spec.element_bytes, spec.element_bytes);
    case AccessSpace::local:
      return units_touched(interleaved_local_words(spec, 0), kLocalWordBytes, unit);
    default:
      return units_touched(offsets, spec.element_bytes, unit);
  }
}

// "8, 16, 32 and 64": the x values of `indices`.
std::string list_of_x(const std::vector<CurvePoint>& curve, const std::vector<std::size_t>& indices) {
  std::string text;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::string separator = k == 0 ? "" : k + 1 == indices.size() ? " and " : ", ";
    text += separator + format_number(curve[indices[k]].x, 0);
  }
  return text;
}

// Which granularity the curve of one element size follows, where it falls, and which strides
// the model leaves unexplained.
void add_finding(StudyResult& result, const std::string& table, AccessSpace space,
                 std::uint32_t element, const std::vector<CurvePoint>& curve,
                 const std::vector<Granularity>& measured) {
  const std::string subject =
      std::string(to_string(space)) + ", " + std::to_string(element) + " B elements: ";
  const std::vector<std::size_t> fell = falls(curve);
  Finding finding;
  finding.table = table;
  if (fell.empty()) {
    std::size_t level = 0;
    for (const CurvePoint& point : curve) {
      level += point.value >= (1 - kFallBand) * curve[0].value ? 1 : 0;
    }
    finding.at = {{"element_bytes", element}};
    finding.what = subject + "throughput does not fall with the stride";
    finding.why = "no granularity limits these requests up to stride " +
                  format_number(curve.back().x, 0);
    finding.confidence =
        Confidence{agreement(level, curve.size(), "strides within 15 % of stride 1")}.value();
    result.findings.push_back(std::move(finding));
    return;
  }
  const std::vector<GranularityCandidate> candidates =
      granularity_candidates(curve, measured, [&](double stride, double bytes) {
        return units_at(stride_spec(space, element, static_cast<std::uint32_t>(stride)), bytes);
      });
  const GranularityChoice choice = *choose_granularity(curve, candidates);
  const GranularityFit& fit = choice.best;
  const double block = fit.granularity_bytes;
  const std::string block_name = space == AccessSpace::shared ? "bank row" : "block";
  const Granularity* match = matching_granularity(choice, measured);
  // Where every lane has a block of its own: from there on the curve stays flat.
  const double saturating_stride = std::max(1.0, block / element);
  finding.at = {{"element_bytes", element}, {"stride_elements", saturating_stride}};
  const std::string model = std::isfinite(fit.cap) ? "min(" + format_rate(fit.cap) + ", rate / " +
                                                         block_name + "s)"
                                                   : "rate / " + block_name + "s";
  finding.what = subject + "throughput falls at stride" + (fell.size() > 1 ? "s " : " ") +
                 list_of_x(curve, fell) +
                 " and follows the " + format_bytes(block) + " " + block_name +
                 "s a request touches: " + model + " explains " +
                 std::to_string(fit.explained_count) + " of " + std::to_string(curve.size()) +
                 " strides";
  finding.why = "each request costs one pass per " + format_bytes(block) + " " + block_name +
                " it touches" +
                (match              ? " (the " + match->kind + ")"
                 : measured.empty() ? ""
                                    : ", none of the granularities the topology measured") +
                "; from " + format_bytes(block) + " between lanes (stride " +
                format_number(saturating_stride, 0) + ") every lane has one of its own";
  for (std::size_t i = 0; i < curve.size(); ++i) {
    if (fit.explained[i]) continue;
    finding.why += "; not explained: stride " + format_number(curve[i].x, 0) + " (" +
                   format_number(curve[i].value / curve[0].value, 3) + " of stride 1, the model " +
                   format_number(fit.predicted[i] / curve[0].value, 3) + ")";
  }
  finding.tied_to = granularity_ties(choice, measured);
  finding.confidence = granularity_confidence(choice, curve.size(), measured, "strides").value();
  result.findings.push_back(std::move(finding));
}

// Constant and local memory: how much faster a request whose lanes share one element (stride 0)
// is than one whose lanes each read their own (stride 1), and whether the units it moves
// explain it (constant-cache passes; local sectors, at the topology's sector).
void add_shared_address_finding(StudyResult& result, const std::string& table, AccessSpace space,
                                std::uint32_t element, double at_shared, double at_stride_1,
                                const Granularity& granularity) {
  const double measured = at_shared / at_stride_1;
  Finding finding;
  finding.table = table;
  finding.at = {{"element_bytes", element}, {"stride_elements", kSharedAddressStride}};
  finding.what = std::string(to_string(space)) + ", " + std::to_string(element) +
                 " B elements: a request whose lanes share one element moves " +
                 format_number(measured, 1) + "x the useful bytes of one whose lanes read " +
                 "consecutive elements";
  finding.why = space == AccessSpace::constant
                    ? "the constant cache broadcasts one address to the warp per pass and "
                      "serialises distinct addresses: 32 lanes at 32 addresses take 32 passes"
                    : "local memory interleaves the 4-byte words of a warp's threads: the same "
                      "index in every thread is one contiguous span, a different index per lane "
                      "a sector per lane and word";
  const bool needs_granularity = space == AccessSpace::local;
  finding.tied_to = needs_granularity ? granularity.source : "";
  if (!needs_granularity || granularity.bytes) {
    const double unit = granularity.bytes.value_or(element);
    const double predicted = units_at(stride_spec(space, element, 1), unit) /
                             units_at(stride_spec(space, element, kSharedAddressStride), unit);
    finding.why += " (the units moved predict " + format_number(predicted, 1) + "x)";
    finding.confidence =
        Confidence{contrast(measured, predicted, "measured ratio of the predicted one")}.value();
  }
  result.findings.push_back(std::move(finding));
}

struct StrideRun {
  std::uint32_t stride = 0;
  StridedAccessSpec spec;
  StridedMeasurement measured;
};

// One element size's rows: every stride, with the ratio to stride 1's throughput.
void add_rows(Table& table, const std::vector<StrideRun>& runs, const Granularity& granularity) {
  std::optional<double> at_stride_1;
  for (const StrideRun& run : runs) {
    if (run.stride == 1 && !run.measured.bytes_per_second.empty()) {
      at_stride_1 = measured_cell(run.measured.bytes_per_second).value.get<double>();
    }
  }
  for (const StrideRun& run : runs) {
    const StridedAccessSpec& spec = run.spec;
    Cell throughput = cell_or_missing(run.measured.bytes_per_second, run.measured.skipped);
    Cell ratio = missing_cell("no throughput");
    if (throughput.value.is_number() && at_stride_1) {
      ratio = number_cell(throughput.value.get<double>() / *at_stride_1);
    }
    Cell units = missing_cell("not measured: " + granularity.source);
    if (spec.space == AccessSpace::constant) {
      units = number_cell(units_at(spec, spec.element_bytes));
    } else if (granularity.bytes) {
      units = number_cell(units_at(spec, *granularity.bytes));
    }
    table.rows.push_back({number_cell(spec.element_bytes), number_cell(run.stride),
                          number_cell(static_cast<double>(run.stride) * spec.element_bytes), units,
                          throughput, ratio,
                          cell_or_missing(run.measured.latency_cycles, run.measured.skipped)});
  }
}

void add_findings(StudyResult& result, const std::string& table, AccessSpace space,
                  std::uint32_t element, const std::vector<StrideRun>& runs,
                  const Granularity& granularity, const std::vector<Granularity>& measured) {
  std::vector<CurvePoint> curve;  // strides 1 to 64
  std::optional<double> at_shared;
  for (const StrideRun& run : runs) {
    if (run.measured.bytes_per_second.empty()) continue;
    const double value = measured_cell(run.measured.bytes_per_second).value.get<double>();
    if (run.stride == kSharedAddressStride) {
      at_shared = value;
    } else {
      curve.push_back({static_cast<double>(run.stride), value});
    }
  }
  if (curve.size() != std::size(kStrides)) return;
  // Constant and local requests at strides of 1 or more all serialise per lane: their story is
  // stride 0 against stride 1, not a change point.
  if (runs_shared_address(space)) {
    if (at_shared) {
      add_shared_address_finding(result, table, space, element, *at_shared, curve[0].value,
                                 granularity);
    }
    return;
  }
  add_finding(result, table, space, element, curve, measured);
}

void run_space(StudyContext& context, StudyResult& result, AccessSpace space,
               std::vector<std::string>& trace_rows) {
  const Granularity granularity = space_granularity(context, space);
  const std::vector<Granularity> measured = measured_granularities(context, space);
  Table table{"stride_" + std::string(to_string(space)),
              "Stride: " + std::string(to_string(space)) + " (" + first_level_element(space) + ")",
              stride_columns(),
              {},
              TablePlot{"stride_elements", true, "element_bytes", {"throughput", "latency"}}};
  std::vector<std::uint32_t> strides(std::begin(kStrides), std::end(kStrides));
  if (runs_shared_address(space)) strides.insert(strides.begin(), kSharedAddressStride);
  std::string skipped;
  for (std::uint32_t element : kStridedElementBytes) {
    std::vector<StrideRun> runs;
    for (std::uint32_t stride : strides) {
      context.check_interrupted();
      StrideRun run{stride, stride_spec(space, element, stride), {}};
      run.measured = measure_strided(context, run.spec);
      if (!run.measured.skipped.empty()) skipped = run.measured.skipped;
      append_trace_rows(trace_rows,
                        std::string(to_string(space)) + "/" + std::to_string(element) + "B/s" +
                            std::to_string(stride),
                        run.measured);
      runs.push_back(std::move(run));
    }
    add_rows(table, runs, granularity);
    add_findings(result, table.id, space, element, runs, granularity, measured);
  }
  if (!skipped.empty()) {
    result.notes.push_back(std::string(to_string(space)) + ": not measured here: " + skipped);
  }
  result.tables.push_back(std::move(table));
}

void run_stride(StudyContext& context, StudyResult& result) {
  context.strided_access();  // skips the study where no strided request can run at all
  result.parameters = {{"strides_elements", kStrides},
                       {"element_bytes", kStridedElementBytes},
                       {"blocks_per_sm", kBlocksPerSm},
                       {"threads_per_block", kThreadsPerBlock},
                       {"requests_per_warp", kRequestsPerWarp},
                       {"timed_launches", kTimedLaunches},
                       {"latency_requests", kLatencyRequests},
                       {"global_footprint_bytes", kGlobalFootprintBytes},
                       {"shared_footprint_bytes", kSharedFootprintBytes},
                       {"constant_footprint_bytes", kConstantBankBytes},
                       {"local_array_elements", kLocalArrayElements},
                       {"shared_address_stride_spaces", nlohmann::json::array({"const", "local"})}};
  std::vector<std::string> trace_rows;
  for (AccessSpace space : kAllAccessSpaces) {
    context.phase(std::string(to_string(space)), [&] {
      context.progress("stride: " + std::string(to_string(space)));
      run_space(context, result, space, trace_rows);
    });
  }
  if (context.traces) context.traces->record_table(result.id + "_samples", kStridedTraceHeader, trace_rows);
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
