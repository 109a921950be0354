#include "probes/line/capacity_searches.hpp"

#include <algorithm>
#include <span>

#include "probes/core/chase_helpers.hpp"

namespace memtopo {
namespace {

// Prime strides whose capacity is searched: the first beyond the line and the next one; of the
// power-of-two strides the first beyond the size is the one the line is read at.
constexpr std::size_t kSearchedPrimeStrides = 2;
constexpr std::size_t kSearchedPowerOfTwoStrides = 1;
// Footprints on a grid of about size / kGridPerSize (a multiple of the stride); few points per
// section and a narrow scan keep the loads small.
constexpr std::uint64_t kGridPerSize = 64;
constexpr std::uint32_t kSearchSlots = 4;
constexpr std::uint32_t kDoublingStepsPerBatch = 2;
constexpr std::uint32_t kFinalBracketStrides = 2;
constexpr std::uint32_t kScanMarginStrides = 1;
// Beyond the line the cache holds size x stride / line, and the line is at least the unit: no
// more than size x stride / unit can fit. Doubling must reach beyond that, hence this many times
// it, plus kMaxGridMargin grid steps.
constexpr std::uint64_t kMaxBeyondFactor = 2;
constexpr std::uint64_t kMaxGridMargin = 4;

// The first `count` strides of a ladder that held their probe footprint.
std::vector<CapacitySearch> first_fitting(const StrideLadder& ladder, bool power_of_two,
                                          std::size_t count) {
  std::vector<CapacitySearch> out;
  for (std::size_t i = 0; i < ladder.strides.size() && out.size() < count; ++i) {
    if (!ladder.strides[i].fits_at_probe) continue;
    CapacitySearch s;
    s.power_of_two = power_of_two;
    s.stride_index = i;
    s.stride_bytes = ladder.strides[i].stride_bytes;
    out.push_back(s);
  }
  return out;
}

const StrideLadder& ladder_of(const LinePlan& plan, const CapacitySearch& s) {
  return s.power_of_two ? plan.power_of_two : plan.prime;
}

// The plan of one search (and its grid, set into `s`), started at the stride's probe footprint.
SizeSearchPlan plan_search(const LineMeasurement& m, const LinePlan& plan, CapacitySearch& s,
                           std::size_t searches) {
  const std::uint64_t stride = s.stride_bytes;
  const std::uint64_t start = ladder_of(plan, s).strides[s.stride_index].probe_footprint_bytes;
  s.grid_bytes = stride * std::max<std::uint64_t>(1, plan.size_bytes / (kGridPerSize * stride));
  std::uint64_t max_bytes = kMaxBeyondFactor * (plan.size_bytes * stride / plan.unit_bytes) +
                            kMaxGridMargin * s.grid_bytes;
  max_bytes = std::min(max_bytes, m.limits().max_footprint_bytes);
  max_bytes = std::min(max_bytes, std::uint64_t{m.limits().max_timed_loads} * stride);
  SizeSearchPlan p;
  p.stride_bytes = s.grid_bytes;
  p.start_bytes = std::max(s.grid_bytes, round_down(start, s.grid_bytes));
  p.max_bytes = round_down(max_bytes, s.grid_bytes);
  p.batch_slots = std::max<std::uint32_t>(
      1, std::min<std::uint32_t>(kSearchSlots, m.slots() / static_cast<std::uint32_t>(searches)));
  p.doubling_steps_per_batch = kDoublingStepsPerBatch;
  p.final_bracket_strides = kFinalBracketStrides;
  p.scan_margin_strides = kScanMarginStrides;
  return p;
}

// One round of every unfinished search as one batch; the verdicts per search, in order.
std::vector<std::vector<FitVerdict>> measure_round(LineMeasurement& m,
                                                   const std::vector<CapacitySearch>& searches,
                                                   std::span<const FootprintBatch* const> round) {
  std::vector<ChaseSpec> batch;
  for (std::size_t r = 0; r < round.size(); ++r) {
    if (!round[r]) continue;
    for (std::uint64_t footprint : round[r]->footprints) {
      batch.push_back(m.fit_chase(footprint, searches[r].stride_bytes));
    }
  }
  const auto traces = m.run_batches(batch, "search");
  std::vector<std::vector<FitVerdict>> out(round.size());
  std::size_t k = 0;
  for (std::size_t r = 0; r < round.size(); ++r) {
    if (!round[r]) continue;
    for (std::size_t j = 0; j < round[r]->footprints.size(); ++j) {
      out[r].push_back(m.judge(traces[k++]));
    }
  }
  return out;
}

}  // namespace

std::vector<CapacitySearch> search_capacities(LineMeasurement& m, LinePlan& plan) {
  std::vector<CapacitySearch> searches = first_fitting(plan.prime, false, kSearchedPrimeStrides);
  for (auto& s : first_fitting(plan.power_of_two, true, kSearchedPowerOfTwoStrides))
    searches.push_back(s);
  if (searches.empty()) return searches;
  std::vector<SizeSearchPlan> plans;
  for (auto& s : searches) plans.push_back(plan_search(m, plan, s, searches.size()));
  m.ctx().progress(m.id() + ": searching the capacity at " + std::to_string(plans.size()) +
                   " strides concurrently");
  const auto results =
      search_cache_sizes_together(plans, [&](std::span<const FootprintBatch* const> round) {
        return measure_round(m, searches, round);
      });
  for (std::size_t k = 0; k < searches.size(); ++k) {
    CapacitySearch& s = searches[k];
    s.result = results[k];
    if (s.result.outcome != SizeSearchOutcome::found) continue;
    StrideLadder& ladder = s.power_of_two ? plan.power_of_two : plan.prime;
    ladder.strides[s.stride_index].capacity_footprint_bytes = s.result.size_bytes;
  }
  return searches;
}

const CapacitySearch* search_of(const std::vector<CapacitySearch>& searches, bool power_of_two,
                                std::size_t stride_index) {
  const auto it = std::find_if(searches.begin(), searches.end(), [&](const CapacitySearch& s) {
    return s.power_of_two == power_of_two && s.stride_index == stride_index;
  });
  return it == searches.end() ? nullptr : &*it;
}

std::optional<double> weakest_edge(const std::vector<CapacitySearch>& searches, bool power_of_two) {
  std::optional<double> weakest;
  for (const auto& s : searches) {
    if (s.power_of_two != power_of_two || s.result.outcome != SizeSearchOutcome::found) continue;
    weakest = std::min(weakest.value_or(s.result.confidence), s.result.confidence);
  }
  return weakest;
}

nlohmann::json search_evidence(const CapacitySearch& s) {
  return {{"outcome", to_string(s.result.outcome)},
          {"grid_bytes", s.grid_bytes},
          {"capacity_footprint_bytes", s.result.size_bytes},
          {"edge_confidence", s.result.confidence},
          {"footprints", s.result.steps.size()},
          {"batches", s.result.batches}};
}

}  // namespace memtopo
