// The coalescing study (issue 13, study 3; seed 001, 3.4.3): bandwidth of warps whose lane l
// reads the 4-byte word at base + l x offset (offset 0 to 64 words), and of requests that start
// misaligned; beside each, the sectors and lines one request touches as the topology predicts
// them, and the measured ratio to the best case (offset 1, aligned).
#include "model/units.hpp"
#include "study/strided/curve.hpp"
#include "study/strided/strided_common.hpp"
#include "study/studies.hpp"

namespace memtopo::study {
namespace {

constexpr std::uint32_t kWordBytes = 4;
constexpr std::uint32_t kMaxOffsetWords = 64;
constexpr std::uint32_t kBestOffsetWords = 1;  // consecutive words: the best case
// Starts past a 128-byte boundary: within a sector, across a sector, half a line, the last word.
constexpr std::uint32_t kMisalignments[] = {0, 4, 16, 32, 64, 124};
constexpr std::uint64_t kFootprintBytes = std::uint64_t{8} << 20;
constexpr std::uint32_t kBlocksPerSm = 4;
constexpr std::uint32_t kThreadsPerBlock = 256;
constexpr std::uint32_t kRequestsPerWarp = 256;
constexpr std::uint32_t kTimedLaunches = 5;

StridedAccessSpec coalescing_spec(std::uint32_t offset_words, std::uint32_t start_bytes) {
  StridedAccessSpec spec;
  spec.space = AccessSpace::ca;
  spec.element_bytes = kWordBytes;
  spec.stride_elements = offset_words;
  spec.start_offset_bytes = start_bytes;
  spec.footprint_bytes = kFootprintBytes;
  spec.blocks_per_sm = kBlocksPerSm;
  spec.threads_per_block = kThreadsPerBlock;
  spec.requests_per_warp = kRequestsPerWarp;
  spec.timed_launches = kTimedLaunches;
  return spec;
}

std::vector<Column> coalescing_columns(const std::string& parameter, const std::string& unit) {
  return {
      {parameter, unit, ColumnRole::parameter, ""},
      {"sectors_per_request", "", ColumnRole::predicted,
       "distinct l1.sector-sized blocks the 32 lanes touch"},
      {"lines_per_request", "", ColumnRole::predicted,
       "distinct l1.line-sized blocks the 32 lanes touch"},
      {"throughput", "bytes/second", ColumnRole::measured,
       "useful bytes (32 lanes x 4 B per request) per second, every SM busy (ld.global.ca)"},
      {"ratio_to_best", "", ColumnRole::derived, "throughput over offset 1 aligned"},
      {"predicted_ratio", "", ColumnRole::predicted,
       "sectors of the best case over this row's sectors (bandwidth-bound model)"},
  };
}

struct Predictions {
  Granularity sector;
  Granularity line;
};

Cell units_cell(const StridedAccessSpec& spec, const Granularity& granularity) {
  if (!granularity.bytes) return missing_cell("not measured: " + granularity.source);
  const auto offsets = lane_offsets(spec, 0);
  return number_cell(
      units_touched(offsets, kWordBytes, static_cast<std::uint32_t>(*granularity.bytes)));
}

// One row; `best` is the best case's throughput once measured.
std::vector<Cell> measure_row(StudyContext& context, const StridedAccessSpec& spec,
                              const Cell& parameter, const Predictions& predictions,
                              std::optional<double>& best, std::vector<std::string>& trace_rows,
                              std::string& skipped) {
  context.check_interrupt();
  const StridedMeasurement measured = measure_strided(context, spec);
  if (!measured.skipped.empty()) skipped = measured.skipped;
  append_trace_rows(trace_rows,
                    "offset" + std::to_string(spec.stride_elements) + "/start" +
                        std::to_string(spec.start_offset_bytes),
                    measured);
  Cell throughput = cell_or_missing(measured.bytes_per_second, measured.skipped);
  Cell ratio = missing_cell("no throughput");
  if (throughput.value.is_number()) {
    if (!best) best = throughput.value.get<double>();
    ratio = number_cell(throughput.value.get<double>() / *best);
  }
  Cell predicted = missing_cell("not measured: " + predictions.sector.source);
  if (predictions.sector.bytes) {
    const auto sectors = [&](const StridedAccessSpec& s) {
      const auto offsets = lane_offsets(s, 0);
      return static_cast<double>(units_touched(
          offsets, kWordBytes, static_cast<std::uint32_t>(*predictions.sector.bytes)));
    };
    predicted = number_cell(sectors(coalescing_spec(kBestOffsetWords, 0)) / sectors(spec));
  }
  return {parameter,
          units_cell(spec, predictions.sector),
          units_cell(spec, predictions.line),
          throughput,
          ratio,
          predicted};
}

void add_offset_finding(StudyResult& result, const Table& table, const Predictions& predictions) {
  // The curve from offset 1 on (offset 0 is a broadcast: one word for all lanes).
  const std::size_t throughput = table.column("throughput");
  std::vector<CurvePoint> curve;
  for (const std::vector<Cell>& row : table.rows) {
    const double offset = row[0].value.get<double>();
    if (offset < kBestOffsetWords || !row[throughput].value.is_number()) continue;
    if ((static_cast<std::uint32_t>(offset) & (static_cast<std::uint32_t>(offset) - 1)) != 0) {
      continue;  // the doubling offsets: 1, 2, 4 ... 64
    }
    curve.push_back({offset, row[throughput].value.get<double>()});
  }
  const std::optional<std::size_t> knee = plateau_start(curve);
  if (!knee) return;
  const double granularity = curve[*knee].x * kWordBytes;
  std::vector<double> units;
  for (const CurvePoint& point : curve) {
    const auto offsets = lane_offsets(coalescing_spec(static_cast<std::uint32_t>(point.x), 0), 0);
    units.push_back(units_touched(offsets, kWordBytes, static_cast<std::uint32_t>(granularity)));
  }
  Confidence confidence{model_agreement(curve, units)};
  Finding finding;
  finding.table = table.id;
  finding.at = {{"offset_words", curve[*knee].x}};
  finding.what = "bandwidth falls with the offset up to " + format_number(curve[*knee].x, 0) +
                 " words and stays at " + format_number(curve[*knee].value / curve[0].value, 3) +
                 " of the best from there";
  finding.why = "from " + format_bytes(granularity) +
                " between lanes every lane needs a sector of its own: 32 per request";
  finding.tied_to = predictions.sector.source;
  if (predictions.sector.bytes) {
    confidence *= methods_agreeing(*predictions.sector.bytes == granularity ? 1 : 0, 1,
                                   "l1.sector equals the curve's granularity");
  }
  finding.confidence = confidence.value();
  result.findings.push_back(std::move(finding));
}

void run_coalescing(StudyContext& context, StudyResult& result) {
  strided_runner(context);
  result.parameters = {
      {"offsets_words", {0, kMaxOffsetWords}}, {"misalignments_bytes", kMisalignments},
      {"blocks_per_sm", kBlocksPerSm},         {"threads_per_block", kThreadsPerBlock},
      {"requests_per_warp", kRequestsPerWarp}, {"timed_launches", kTimedLaunches},
      {"footprint_bytes", kFootprintBytes}};
  const Predictions predictions{topology_granularity(context, "l1", "sector"),
                                topology_granularity(context, "l1", "line")};
  std::vector<std::string> trace_rows;
  std::optional<double> best;
  std::string skipped;
  Table aligned{"coalescing_offset",
                "Coalescing: lane l reads word base + l x offset (aligned)",
                coalescing_columns("offset_words", ""),
                {}};
  Table misaligned{"coalescing_misaligned",
                   "Coalescing: consecutive words (offset 1) starting past a 128 B boundary",
                   coalescing_columns("start_offset", "bytes"),
                   {}};
  context.phases.run("misaligned", [&] {
    for (std::uint32_t start : kMisalignments) {
      misaligned.rows.push_back(measure_row(context, coalescing_spec(kBestOffsetWords, start),
                                            number_cell(start), predictions, best, trace_rows,
                                            skipped));
    }
  });
  context.phases.run("offsets", [&] {
    for (std::uint32_t offset = 0; offset <= kMaxOffsetWords; ++offset) {
      aligned.rows.push_back(measure_row(context, coalescing_spec(offset, 0), number_cell(offset),
                                         predictions, best, trace_rows, skipped));
    }
  });
  add_offset_finding(result, aligned, predictions);
  result.tables.push_back(std::move(aligned));
  result.tables.push_back(std::move(misaligned));
  if (context.traces) context.traces->write("samples", kStridedTraceHeader, trace_rows);
  if (!best) throw StudySkipped("no throughput could be measured here: " + skipped);
}

}  // namespace

Study coalescing_study() {
  return Study{
      .id = "coalescing",
      .title = "bandwidth of a warp reading base + lane x offset, and of misaligned starts",
      .needs = "a CUDA GPU, or a simulated device with a throughput model",
      .run = run_coalescing,
  };
}

}  // namespace memtopo::study
