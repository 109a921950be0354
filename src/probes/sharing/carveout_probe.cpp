#include "probes/sharing/carveout_probe.hpp"

#include <algorithm>
#include <cstdio>

#include "analysis/size_rule.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/size/size_search.hpp"
#include "probes/core/sm_caches.hpp"

namespace memtopo {
namespace {

// Reservations: k/4 of the most a block may reserve, k = 1 .. 4 (0 is l1.size's own
// measurement). Fractions of what the API reports, never a GPU's carveout steps.
constexpr std::uint32_t kReservationQuarters = 4;
// The size searches start where l1.size's does (1 KiB, which any L1 holds) ...
constexpr std::uint64_t kStartFootprintBytes = 1024;
constexpr std::uint32_t kBaselineSamples = 2048;
// ... and time two passes when the backend can record them (see cache_size_probe.cpp).
constexpr std::uint32_t kTimedPasses = 2;

struct CarveoutRow {
  std::uint64_t reserved = 0;
  std::optional<std::uint64_t> l1_bytes;
  double confidence = 0;
  std::string how;  // "l1.size" or the search outcome
};

class CarveoutMeasurement {
 public:
  explicit CarveoutMeasurement(ProbeContext& ctx) : ctx_(ctx), limits_(ctx.backend.limits()) {}

  void run();

 private:
  ChaseSpec chase(LoadPath path, std::uint64_t footprint, std::uint32_t timed_loads,
                  std::uint64_t reserved) {
    ChaseSpec spec;
    spec.path = path;
    spec.footprint_bytes = footprint;
    spec.stride_bytes = stride_;
    spec.order = ChaseOrder::sequential;  // as l1.size: an overfull set misses every pass
    spec.seed = ctx_.seed + next_seed_++;
    spec.warm_passes = 1;
    spec.timed_loads = timed_loads;
    spec.reserved_shared_bytes = static_cast<std::uint32_t>(reserved);
    return spec;
  }
  CarveoutRow measure_row(std::uint64_t reserved, const FitRule& rule);
  void report(const std::vector<CarveoutRow>& rows);

  ProbeContext& ctx_;
  BackendLimits limits_;
  std::uint64_t l1_size_ = 0;
  double l1_size_confidence_ = 0;
  std::uint32_t stride_ = kSmallestLineBytes;
  std::uint64_t max_reserved_ = 0;
  std::uint64_t next_seed_ = 0;
  std::uint64_t loads_ = 0;
  nlohmann::json baselines_ = nlohmann::json::array();
};

CarveoutRow CarveoutMeasurement::measure_row(std::uint64_t reserved, const FitRule& rule) {
  SizeSearchPlan plan;
  plan.start_bytes = round_down(kStartFootprintBytes, stride_);
  // The doubling ends at the first of its footprints beyond l1.size, which must miss: a
  // reservation never makes the L1 larger than with none.
  plan.max_bytes = plan.start_bytes;
  while (plan.max_bytes <= l1_size_) plan.max_bytes *= 2;
  plan.stride_bytes = stride_;
  plan.batch_slots = std::max<std::uint32_t>(1, limits_.concurrent_slots);
  const auto measure = [&](std::span<const std::uint64_t> footprints, std::string_view phase) {
    std::vector<ChaseSpec> batch;
    for (std::uint64_t footprint : footprints) {
      const std::uint64_t elements = footprint / stride_;
      const std::uint64_t passes =
          elements * kTimedPasses <= limits_.max_timed_loads ? kTimedPasses : 1;
      batch.push_back(
          chase(LoadPath::ca, footprint, static_cast<std::uint32_t>(elements * passes), reserved));
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
  CarveoutRow row{reserved, std::nullopt, 0, std::string(to_string(result.outcome))};
  if (result.outcome == SizeSearchOutcome::found) {
    row.l1_bytes = result.size_bytes;
    row.confidence = result.confidence;
  } else if (result.outcome == SizeSearchOutcome::fits_up_to_max) {
    // Everything up to l1.size and beyond fits; a reservation never makes the L1 larger than
    // with none, so it is l1.size, as sure as that was.
    row.l1_bytes = std::min(result.size_bytes, l1_size_);
    row.confidence = l1_size_confidence_;
    row.how = "fits up to l1.size";
  }
  return row;
}

void CarveoutMeasurement::run() {
  const auto size = measured_size(ctx_.topology, "l1");
  if (!size) {
    throw ProbeSkipped(
        "l1.size was not measured: the L1 does not cache ca loads (or its size search was "
        "inconclusive), so there is no L1 whose carveout could be measured");
  }
  l1_size_ = *size;
  const Property* size_property = ctx_.topology.find("l1")->find("size");
  l1_size_confidence_ = size_property->confidence.value_or(0);
  stride_ = measured_line_or(ctx_.topology, "l1", kSmallestLineBytes);
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
  // The fit rule per reservation: a small warm chase via ca and one via cg, all in one batch.
  const std::uint32_t samples = std::min(kBaselineSamples, limits_.max_timed_loads);
  std::vector<ChaseSpec> batch;
  for (std::uint64_t reserved : reservations) {
    batch.push_back(chase(LoadPath::ca, kStartFootprintBytes, samples, reserved));
    batch.push_back(chase(LoadPath::cg, kStartFootprintBytes, samples, reserved));
  }
  const auto traces = ctx_.run(batch, "l1.carveout/baseline");
  for (const auto& spec : batch) loads_ += loads_of(spec);

  std::vector<CarveoutRow> rows = {{0, l1_size_, l1_size_confidence_, "l1.size"}};
  for (std::size_t i = 0; i < reservations.size(); ++i) {
    const LevelBaselines b =
        judge_baselines(traces[2 * i], traces[2 * i + 1], LoadPath::ca, LoadPath::cg,
                        "with " + format_bytes(reservations[i]) +
                            " of shared memory reserved, ca loads are not cached in L1");
    baselines_.push_back({{"reserved_shared_bytes", reservations[i]},
                          {"hit_cycles", spread_evidence(b.hit)},
                          {"next_level_cycles", spread_evidence(b.next_level)},
                          {"threshold_cycles", b.rule.threshold_cycles}});
    rows.push_back(measure_row(reservations[i], b.rule));
  }
  report(rows);
}

void CarveoutMeasurement::report(const std::vector<CarveoutRow>& rows) {
  Property table;
  table.name = "carveout";
  table.unit = "bytes";
  table.source = Source::measured;
  char method[420];
  std::snprintf(method, sizeof method,
                "l1.size's search (ld.global.ca, %u B stride, sequential, 1 warm + %u timed "
                "passes) with 0, 1/4, 1/2, 3/4 and all of the %s a block may reserve; the row "
                "for 0 is l1.size itself",
                stride_, kTimedPasses, format_bytes(max_reserved_).c_str());
  table.method = method;
  table.value = nlohmann::json::array();
  double confidence = 1;
  std::vector<std::string> failed;
  for (const CarveoutRow& row : rows) {
    nlohmann::json entry = {{"reserved_shared_bytes", row.reserved},
                            {"confidence", row.confidence},
                            {"l1_bytes", nullptr}};
    if (row.l1_bytes) {
      entry["l1_bytes"] = *row.l1_bytes;
    } else {
      failed.push_back(format_bytes(row.reserved) + " (" + row.how + ")");
    }
    confidence = std::min(confidence, row.confidence);
    table.value.push_back(std::move(entry));
  }
  table.confidence = confidence;
  if (!failed.empty()) {
    table.note = "no L1 size at " + failed.front() + (failed.size() > 1 ? " and others" : "");
  }
  table.evidence = {{"max_reserved_shared_bytes", max_reserved_},
                    {"stride_bytes", stride_},
                    {"baselines", baselines_},
                    {"loads", loads_}};
  Element& l1 = element_for(ctx_.topology, "l1");
  l1.set(std::move(table));

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
  unified.value = *best->l1_bytes + best->reserved;
  unified.inconclusive = true;
  unified.bound = Bound::lower;
  unified.confidence = best->confidence;
  unified.note = "lower bound, from " + format_bytes(*best->l1_bytes) + " of L1 with " +
                 format_bytes(best->reserved) + " reserved";
  unified.evidence = {{"reserved_shared_bytes", best->reserved}, {"l1_bytes", *best->l1_bytes}};
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
