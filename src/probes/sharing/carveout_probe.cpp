#include "probes/sharing/carveout_probe.hpp"

#include <algorithm>
#include <cstdio>

#include "analysis/size_rule.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/sm_caches.hpp"
#include "probes/size/size_search.hpp"

namespace memtopo {
namespace {

// Reservations: k/4 of the most a block may reserve, k = 1 .. 4 (0 is l1.size's own
// measurement). Fractions of what the API reports, never a GPU's carveout steps.
constexpr std::uint32_t kReservationQuarters = 4;
// Each row's edge is checked on this many more placements of the chain, each a large page
// further into the array, by a scan of the footprints from kEdgeScanBelow strides below the
// search's edge to kEdgeScanAbove above it. On an H200 the smallest row's edge moved between
// 21504 and 21760 B (two lines) from run to run, while every run's search resolved one line
// (docs/results/nvidia-h200/2026-11-24_44d9a19): the row's resolution holds every edge found.
constexpr std::uint32_t kEdgePlacements = 2;
constexpr std::uint64_t kPlacementBytes = 2ull << 20;
constexpr std::uint64_t kEdgeScanBelow = 3;
constexpr std::uint64_t kEdgeScanAbove = 4;
// The size searches run as l1.size's: from kFitsAnyCacheBytes, kTimedPasses timed passes when
// the backend can record them (see cache_size_probe.cpp).

struct CarveoutRow {
  std::uint64_t reserved = 0;
  std::optional<std::uint64_t> l1_bytes;
  std::optional<Confidence> confidence;  // with l1_bytes only
  std::string how;                       // "l1.size" or the search outcome
  // The edges found on other placements (see kEdgePlacements); empty for the l1.size row.
  nlohmann::json placements = nlohmann::json::array();
  std::uint64_t lowest_edge = 0, highest_edge = 0;  // over the search and the placements
  // The row is l1.size itself (R = 0, or everything fitted up to it): its doubt is l1.size's,
  // which the runner's `inherited` factor gives the table (core/inheritance.hpp).
  bool is_l1_size = false;
};

class CarveoutMeasurement {
 public:
  explicit CarveoutMeasurement(ProbeContext& ctx) : ctx_(ctx), limits_(ctx.backend.limits()) {}

  void run();

 private:
  // As l1.size's chases: sequential, so that an overfull set misses on every pass; placed
  // `offset` bytes into the array (other pages).
  ChaseSpec chase(LoadPath path, std::uint64_t footprint, std::uint32_t timed_loads,
                  std::uint64_t reserved, std::uint64_t offset = 0) const {
    return make_chase(path, footprint, stride_)
        .timed_loads(timed_loads)
        .reserving_shared(static_cast<std::uint32_t>(reserved))
        .placed_at(offset);
  }
  // Timed loads of a chase over `footprint`: kTimedPasses passes where the backend can record
  // them, else one.
  std::uint32_t timed_loads_for(std::uint64_t footprint) const {
    const std::uint64_t elements = footprint / stride_;
    const std::uint64_t passes =
        elements * kTimedPasses <= limits_.max_timed_loads ? kTimedPasses : 1;
    return static_cast<std::uint32_t>(elements * passes);
  }
  // The row's edge on other placements: fills placements, lowest_edge and highest_edge.
  void check_edge_on_placements(CarveoutRow& row, const FitRule& rule);
  // Per reservation, a small warm chase via ca and one via cg, all in one batch.
  std::vector<Trace> run_baselines(const std::vector<std::uint64_t>& reservations);
  // The fit rule of one reservation's two baselines (their summaries go to the evidence).
  // Throws ProbeSkipped unless ca is clearly faster than cg.
  FitRule judge_baseline(std::uint64_t reserved, const Trace& ca, const Trace& cg);
  CarveoutRow measure_row(std::uint64_t reserved, const FitRule& rule);
  void report(const std::vector<CarveoutRow>& rows);
  Property table(const std::vector<CarveoutRow>& rows) const;
  void report_unified_size(Element& l1, const std::vector<CarveoutRow>& rows) const;

  ProbeContext& ctx_;
  BackendLimits limits_;
  std::uint64_t l1_size_ = 0;
  Confidence l1_size_confidence_;  // inherited from l1.size (nothing against it without one)
  std::uint32_t stride_ = kSmallestLineBytes;
  std::uint64_t max_reserved_ = 0;
  std::uint64_t loads_ = 0;
  nlohmann::json baselines_ = nlohmann::json::array();
};

CarveoutRow CarveoutMeasurement::measure_row(std::uint64_t reserved, const FitRule& rule) {
  SizeSearchPlan plan;
  plan.start_bytes = round_down(kFitsAnyCacheBytes, stride_);
  // The doubling ends at the first of its footprints beyond l1.size, which must miss: a
  // reservation never makes the L1 larger than with none.
  plan.max_bytes = plan.start_bytes;
  while (plan.max_bytes <= l1_size_) plan.max_bytes *= 2;
  plan.stride_bytes = stride_;
  plan.batch_slots = std::max<std::uint32_t>(1, limits_.concurrent_slots);
  const auto measure = [&](std::span<const std::uint64_t> footprints, std::string_view phase) {
    std::vector<ChaseSpec> batch;
    for (std::uint64_t footprint : footprints) {
      batch.push_back(chase(LoadPath::ca, footprint, timed_loads_for(footprint), reserved));
    }
    ctx_.progress("l1.carveout: " + format_bytes(reserved) + " reserved, " + std::string(phase) +
                  " " + format_bytes(footprints.front()) + " .. " +
                  format_bytes(footprints.back()));
    const auto traces = ctx_.run(batch, "l1.carveout/" + std::string(phase));
    std::vector<FitVerdict> verdicts;
    for (std::size_t i = 0; i < traces.size(); ++i) {
      loads_ += loads_of(batch[i]);
      verdicts.push_back(judge_fit(corrected_cycles(traces[i]), traces[i].indices, rule));
    }
    return verdicts;
  };
  const SizeSearchResult result = search_cache_size(plan, measure);
  CarveoutRow row{reserved, std::nullopt, std::nullopt, std::string(to_string(result.outcome))};
  if (result.outcome == SizeSearchOutcome::found) {
    row.l1_bytes = result.size_bytes;
    row.confidence = size_confidence(result);
    check_edge_on_placements(row, rule);
  } else if (result.outcome == SizeSearchOutcome::fits_up_to_max) {
    // Everything up to l1.size and beyond fits; a reservation never makes the L1 larger than
    // with none, so it is l1.size, as sure as that was.
    row.l1_bytes = std::min(result.size_bytes, l1_size_);
    row.confidence = l1_size_confidence_;
    row.how = "fits up to l1.size";
    row.is_l1_size = true;
  }
  return row;
}

void CarveoutMeasurement::check_edge_on_placements(CarveoutRow& row, const FitRule& rule) {
  const std::uint64_t edge = *row.l1_bytes;
  row.lowest_edge = row.highest_edge = edge;
  const std::uint64_t low =
      edge > kEdgeScanBelow * stride_ ? edge - kEdgeScanBelow * stride_ : stride_;
  std::vector<std::uint64_t> footprints;
  for (std::uint64_t f = low; f <= edge + kEdgeScanAbove * stride_; f += stride_)
    footprints.push_back(f);
  std::vector<ChaseSpec> batch;
  for (std::uint32_t p = 1; p <= kEdgePlacements; ++p) {
    if (p * kPlacementBytes + footprints.back() > limits_.max_footprint_bytes) break;
    for (const std::uint64_t f : footprints)
      batch.push_back(
          chase(LoadPath::ca, f, timed_loads_for(f), row.reserved, p * kPlacementBytes));
  }
  if (batch.empty()) return;
  ctx_.progress("l1.carveout: " + format_bytes(row.reserved) + " reserved, edge on " +
                std::to_string(batch.size() / footprints.size()) + " more placements");
  const auto traces = ctx_.run(batch, "l1.carveout/placements");
  for (const auto& spec : batch) loads_ += loads_of(spec);
  for (std::size_t first = 0; first < traces.size(); first += footprints.size()) {
    // The placement's edge: the largest footprint below its first miss; past the scan's ends,
    // the end itself (then the row's range reaches it).
    std::uint64_t placed_edge = footprints.back();
    for (std::size_t i = 0; i < footprints.size(); ++i) {
      const FitVerdict v =
          judge_fit(corrected_cycles(traces[first + i]), traces[first + i].indices, rule);
      if (!v.fits) {
        placed_edge = i == 0 ? footprints.front() - stride_ : footprints[i - 1];
        break;
      }
    }
    row.placements.push_back({{"offset_bytes", (first / footprints.size() + 1) * kPlacementBytes},
                              {"l1_bytes", placed_edge}});
    row.lowest_edge = std::min(row.lowest_edge, placed_edge);
    row.highest_edge = std::max(row.highest_edge, placed_edge);
  }
}

std::vector<Trace> CarveoutMeasurement::run_baselines(
    const std::vector<std::uint64_t>& reservations) {
  const std::uint32_t samples = std::min(kBaselineSamples, limits_.max_timed_loads);
  std::vector<ChaseSpec> batch;
  for (std::uint64_t reserved : reservations) {
    batch.push_back(chase(LoadPath::ca, kFitsAnyCacheBytes, samples, reserved));
    batch.push_back(chase(LoadPath::cg, kFitsAnyCacheBytes, samples, reserved));
  }
  auto traces = ctx_.run(batch, "l1.carveout/baseline");
  for (const auto& spec : batch) loads_ += loads_of(spec);
  return traces;
}

FitRule CarveoutMeasurement::judge_baseline(std::uint64_t reserved, const Trace& ca,
                                            const Trace& cg) {
  const LevelBaselines b =
      judge_baselines(ca, cg, LoadPath::ca, LoadPath::cg,
                      "with " + format_bytes(reserved) +
                          " of shared memory reserved, ca loads are not cached in L1");
  baselines_.push_back({{"reserved_shared_bytes", reserved},
                        {"hit_cycles", spread_evidence(b.hit)},
                        {"next_level_cycles", spread_evidence(b.next_level)},
                        {"threshold_cycles", b.rule.threshold_cycles}});
  return b.rule;
}

void CarveoutMeasurement::run() {
  const auto size = finding_count(ctx_.topology, "l1", "size");
  if (!size) {
    throw ProbeSkipped(
        "l1.size was not measured: the L1 does not cache ca loads (or its size search was "
        "inconclusive), so there is no L1 whose carveout could be measured");
  }
  l1_size_ = *size;
  if (const auto confidence = conclusive_finding(ctx_.topology, "l1", "size")->confidence) {
    l1_size_confidence_ *= inherited(*confidence, "l1.size");
  }
  stride_ = static_cast<std::uint32_t>(
      finding_count(ctx_.topology, "l1", "line").value_or(kSmallestLineBytes));
  const std::uint64_t optin = ctx_.backend.facts().shared_per_block_optin_bytes;
  max_reserved_ = std::min(optin, limits_.max_reserved_shared_bytes);
  if (max_reserved_ == 0) {
    throw ProbeSkipped("no shared memory can be reserved: opt-in maximum " + format_bytes(optin) +
                       ", backend limit " + format_bytes(limits_.max_reserved_shared_bytes));
  }

  std::vector<std::uint64_t> reservations;
  for (std::uint32_t q = 1; q <= kReservationQuarters; ++q) {
    reservations.push_back(max_reserved_ * q / kReservationQuarters);
  }
  const std::vector<Trace> traces = run_baselines(reservations);
  std::vector<CarveoutRow> rows = {{0, l1_size_, l1_size_confidence_, "l1.size"}};
  rows.front().is_l1_size = true;
  for (std::size_t i = 0; i < reservations.size(); ++i) {
    const FitRule rule = judge_baseline(reservations[i], traces[2 * i], traces[2 * i + 1]);
    rows.push_back(measure_row(reservations[i], rule));
  }
  report(rows);
}

// The table: per reservation, the L1 size and how sure it is; the table is as sure as its
// least sure row that it measured (the rows that are l1.size come in with the runner's factor),
// and holds only as much as the share of rows that found a size.
Property CarveoutMeasurement::table(const std::vector<CarveoutRow>& rows) const {
  Property table;
  table.name = "carveout";
  table.unit = "bytes";
  table.source = Source::measured;
  char method[600];
  std::snprintf(method, sizeof method,
                "l1.size's search (ld.global.ca, %u B stride, sequential, 1 warm + %u timed "
                "passes) with 0, 1/4, 1/2, 3/4 and all of the %s a block may reserve; the row "
                "for 0 is l1.size itself; each other row's edge scanned again on %u more "
                "placements of the chain (2 MiB apart): resolution_bytes spans every edge",
                stride_, kTimedPasses, format_bytes(max_reserved_).c_str(), kEdgePlacements);
  table.method = method;
  table.value = nlohmann::json::array();
  std::vector<double> row_confidences;  // of the rows with a size that it measured
  std::size_t rows_with_a_size = 0;
  std::vector<std::string> failed;
  for (const CarveoutRow& row : rows) {
    nlohmann::json entry = {
        {"reserved_shared_bytes", row.reserved}, {"confidence", nullptr}, {"l1_bytes", nullptr}};
    if (row.l1_bytes) {
      entry["l1_bytes"] = *row.l1_bytes;
      // The edge lies between the lowest edge found (fits) and the highest + one step (misses):
      // the search's step when every placement agrees.
      entry["resolution_bytes"] =
          row.placements.empty() ? stride_ : row.highest_edge + stride_ - row.lowest_edge;
      if (!row.placements.empty()) entry["placements"] = row.placements;
      entry["confidence"] = row.confidence->value();
      ++rows_with_a_size;
      if (!row.is_l1_size) row_confidences.push_back(row.confidence->value());
    } else {
      failed.push_back(format_bytes(row.reserved) + " (" + row.how + ")");
    }
    table.value.push_back(std::move(entry));
  }
  table.evidence = {{"max_reserved_shared_bytes", max_reserved_},
                    {"stride_bytes", stride_},
                    {"baselines", baselines_},
                    {"loads", loads_}};
  Confidence confidence{
      share(static_cast<double>(rows_with_a_size) / static_cast<double>(rows.size()),
            "of the rows found an L1 size")};
  if (!row_confidences.empty()) {
    confidence *= weakest_of(row_confidences, "rows with a size it measured");
  }
  set_confidence(table, confidence);
  if (!failed.empty()) {
    table.note = "no L1 size at " + failed.front() + (failed.size() > 1 ? " and others" : "");
  }
  return table;
}

void CarveoutMeasurement::report(const std::vector<CarveoutRow>& rows) {
  Element& l1 = element_for(ctx_.topology, "l1");
  l1.set(table(rows));
  report_unified_size(l1, rows);
}

void CarveoutMeasurement::report_unified_size(Element& l1,
                                              const std::vector<CarveoutRow>& rows) const {
  // An L1 that keeps its size whatever is reserved is not one array with shared memory: there
  // is no unified capacity to derive.
  const bool shrinks = std::any_of(rows.begin(), rows.end(), [&](const CarveoutRow& row) {
    return row.l1_bytes && *row.l1_bytes + stride_ < l1_size_;
  });
  if (!shrinks) {
    Property& stored = *l1.find("carveout");
    stored.note =
        "the L1 keeps its size at every reservation: L1 and shared memory are separate "
        "arrays (or the carveout does not follow the reservation)";
    return;
  }
  // Reserving R configures a carveout C >= R, and the array holds L1(R) + C >= L1(R) + R: every
  // row bounds the unified capacity from below, tightest where R is a carveout step itself.
  const CarveoutRow* best = nullptr;
  for (const CarveoutRow& row : rows) {
    if (row.l1_bytes &&
        (!best || *row.l1_bytes + row.reserved > *best->l1_bytes + best->reserved)) {
      best = &row;
    }
  }
  if (!best) return;
  Property unified;
  unified.name = "unified_size";
  unified.unit = "bytes";
  unified.source = Source::derived;
  unified.method =
      "from l1.carveout: the largest L1 size + reservation of its rows. A reservation R gets a "
      "carveout of at least R, so L1(R) + R never exceeds the L1 + shared capacity: a lower "
      "bound, exact when R is one of the device's carveout steps";
  // A bound, so inconclusive, and without a confidence of its own: the row it comes from says
  // how sure its L1 size is.
  unified.value = *best->l1_bytes + best->reserved;
  unified.inconclusive = true;
  unified.bound = Bound::lower;
  unified.note = "lower bound, from " + format_bytes(*best->l1_bytes) + " of L1 with " +
                 format_bytes(best->reserved) + " reserved";
  unified.evidence = {{"reserved_shared_bytes", best->reserved},
                      {"l1_bytes", *best->l1_bytes},
                      {"row_confidence", best->confidence->value()}};
  l1.set(std::move(unified));
}

}  // namespace

std::vector<std::string> CarveoutProbe::needs() const {
  std::vector<std::string> needs = {"l1.size"};
  if (probe_registered("l1.line")) needs.push_back("l1.line");
  return needs;
}

void CarveoutProbe::run(ProbeContext& ctx) {
  CarveoutMeasurement(ctx).run();
}

}  // namespace memtopo
