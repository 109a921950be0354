// The coalescing study (issue 13, study 3; study 001, 3.4.3): bandwidth of warps whose lane l
// reads the 4-byte word at base + l x offset (offset 0 to 64 words), and of requests that start
// misaligned; beside each, the sectors and lines one request touches as the topology predicts
// them, and the measured ratio to the best case (offset 1, aligned).
#include <algorithm>
#include <cmath>

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
constexpr std::uint32_t kCoalescingBlocksPerSm = 4;
constexpr std::uint32_t kCoalescingThreadsPerBlock = 256;
constexpr std::uint32_t kCoalescingRequestsPerWarp = 256;
constexpr std::uint32_t kCoalescingTimedLaunches = 5;

StridedAccessSpec coalescing_spec(std::uint32_t offset_words, std::uint32_t start_bytes) {
  StridedAccessSpec spec;
  spec.space = AccessSpace::ca;
  spec.element_bytes = kWordBytes;
  spec.stride_elements = offset_words;
  spec.start_offset_bytes = start_bytes;
  spec.footprint_bytes = kFootprintBytes;
  spec.blocks_per_sm = kCoalescingBlocksPerSm;
  spec.threads_per_block = kCoalescingThreadsPerBlock;
  spec.requests_per_warp = kCoalescingRequestsPerWarp;
  spec.timed_launches = kCoalescingTimedLaunches;
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
  context.check_interrupted();
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

double blocks_at(std::uint32_t offset_words, double granularity) {
  const auto offsets = lane_offsets(coalescing_spec(offset_words, 0), 0);
  return units_touched(offsets, kWordBytes, static_cast<std::uint32_t>(granularity));
}

bool is_power_of_two(std::uint32_t value) { return value != 0 && (value & (value - 1)) == 0; }

// The granularity the doubling offsets (1, 2, 4 ... 64) follow (study/strided/curve.hpp), then
// how far the same model explains every other offset.
void add_offset_findings(StudyResult& result, const Table& table,
                         const std::vector<Granularity>& measured) {
  const std::size_t throughput = table.column("throughput");
  std::vector<CurvePoint> doubling;
  std::vector<CurvePoint> others;
  for (const std::vector<Cell>& row : table.rows) {
    const auto offset = static_cast<std::uint32_t>(row[0].value.get<double>());
    // Offset 0 is a broadcast: one word for all lanes, not a point of the curve.
    if (offset < kBestOffsetWords || !row[throughput].value.is_number()) continue;
    const CurvePoint point{static_cast<double>(offset), row[throughput].value.get<double>()};
    (is_power_of_two(offset) ? doubling : others).push_back(point);
  }
  if (doubling.size() < 3) return;
  const std::vector<GranularityCandidate> candidates =
      granularity_candidates(doubling, measured, [](double offset, double bytes) {
        return blocks_at(static_cast<std::uint32_t>(offset), bytes);
      });
  const GranularityChoice choice = *choose_granularity(doubling, candidates);
  const GranularityFit& fit = choice.best;
  const double block = fit.granularity_bytes;
  const double best = doubling.front().value;
  const Granularity* match = matching_granularity(choice, measured);
  Finding finding;
  finding.table = table.id;
  finding.at = {{"offset_words", std::max(1.0, block / kWordBytes)}};
  finding.what = "doubling offsets (1 to " + format_number(doubling.back().x, 0) +
                 " words): bandwidth follows the " + format_bytes(block) +
                 " blocks a request touches, " + std::to_string(fit.explained_count) + " of " +
                 std::to_string(doubling.size()) + " within 25 % of min(" + format_rate(fit.cap) +
                 ", rate / blocks), and stays at " +
                 format_number(doubling.back().value / best, 3) + " of the best from " +
                 format_bytes(block) + " between lanes";
  finding.why = "each request costs one pass per " + format_bytes(block) + " block" +
                (match              ? " (the l1." + match->kind + ")"
                 : measured.empty() ? ""
                                    : ", none of the granularities the topology measured") +
                "; from " + format_bytes(block) + " between lanes every lane has a block of its own";
  finding.tied_to = granularity_ties(choice, measured);
  finding.confidence = granularity_confidence(choice, doubling.size(), measured, "offsets").value();
  const double fit_confidence = *finding.confidence;
  result.findings.push_back(std::move(finding));
  if (others.empty()) return;

  // The same model on the offsets between the doubling ones.
  std::size_t explained = 0;
  double worst = 1;
  const CurvePoint* worst_point = nullptr;
  nlohmann::json slower = nlohmann::json::array();
  for (const CurvePoint& point : others) {
    const double predicted = predict(fit, blocks_at(static_cast<std::uint32_t>(point.x), block));
    const double ratio = point.value / predicted;
    if (std::fabs(point.value - predicted) <= kModelBand * predicted) {
      ++explained;
    } else if (ratio < 1) {
      slower.push_back(point.x);
    }
    if (ratio < worst) {
      worst = ratio;
      worst_point = &point;
    }
  }
  Finding between;
  between.table = table.id;
  between.at = {{"offset_words", slower}};
  between.what = "the other offsets: " + std::to_string(explained) + " of " +
                 std::to_string(others.size()) + " within 25 % of the " + format_bytes(block) +
                 " model fitted to the doubling offsets";
  if (worst_point && explained < others.size()) {
    between.what += "; " + std::to_string(slower.size()) + " are slower than it, by up to " +
                    format_number(1 / worst, 1) + "x (offset " +
                    format_number(worst_point->x, 0) + ": " +
                    format_number(worst_point->value / best, 3) + " of the best)";
    between.why = "these requests cost more than the " + format_bytes(block) +
                  " blocks they touch predict: unexplained";
  } else {
    between.why = "the blocks a request touches explain them too";
  }
  between.tied_to = granularity_ties(choice, measured);
  // Counting against the model is as sure as the model: the doubling offsets' fit.
  between.confidence =
      Confidence{inherited(fit_confidence, "the doubling offsets' granularity fit")}.value();
  result.findings.push_back(std::move(between));
}

void run_coalescing(StudyContext& context, StudyResult& result) {
  context.strided_access();
  result.parameters = {{"offsets_words", {0, kMaxOffsetWords}},
                       {"misalignments_bytes", kMisalignments},
                       {"blocks_per_sm", kCoalescingBlocksPerSm},
                       {"threads_per_block", kCoalescingThreadsPerBlock},
                       {"requests_per_warp", kCoalescingRequestsPerWarp},
                       {"timed_launches", kCoalescingTimedLaunches},
                       {"footprint_bytes", kFootprintBytes}};
  const Predictions predictions{topology_granularity(context, "l1", "sector"),
                                topology_granularity(context, "l1", "line")};
  std::vector<std::string> trace_rows;
  std::optional<double> best;
  std::string skipped;
  Table aligned{"coalescing_offset",
                "Coalescing: lane l reads word base + l x offset (aligned)",
                coalescing_columns("offset_words", ""),
                {},
                TablePlot{"offset_words", false, "", {"throughput", "ratio_to_best"}}};
  Table misaligned{"coalescing_misaligned",
                   "Coalescing: consecutive words (offset 1) starting past a 128 B boundary",
                   coalescing_columns("start_offset", "bytes"),
                   {},
                   TablePlot{"start_offset", false, "", {"throughput"}}};
  context.phase("misaligned", [&] {
    for (std::uint32_t start : kMisalignments) {
      misaligned.rows.push_back(measure_row(context, coalescing_spec(kBestOffsetWords, start),
                                            number_cell(start), predictions, best, trace_rows,
                                            skipped));
    }
  });
  context.phase("offsets", [&] {
    for (std::uint32_t offset = 0; offset <= kMaxOffsetWords; ++offset) {
      aligned.rows.push_back(measure_row(context, coalescing_spec(offset, 0), number_cell(offset),
                                         predictions, best, trace_rows, skipped));
    }
  });
  add_offset_findings(result, aligned, measured_granularities(context, AccessSpace::ca));
  result.tables.push_back(std::move(aligned));
  result.tables.push_back(std::move(misaligned));
  if (context.traces) context.traces->record_table(result.id + "_samples", kStridedTraceHeader, trace_rows);
  if (!best) throw Skipped("no throughput could be measured here: " + skipped);
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
