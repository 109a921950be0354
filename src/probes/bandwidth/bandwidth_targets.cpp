#include "probes/bandwidth/bandwidth_targets.hpp"

#include <algorithm>
#include <bit>

#include "model/units.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {

const std::vector<BandwidthTarget>& bandwidth_targets() {
  using F = BandwidthFootprint;
  using S = BandwidthSweep;
  constexpr auto per_block = StreamPlacement::per_block;
  constexpr auto shared_by_all = StreamPlacement::shared_by_all;
  static const std::vector<BandwidthTarget> table = {
      {"l1",
       LoadPath::ca,
       per_block,
       F::inside_sm_cache,
       true,
       false,
       false,
       S::per_sm,
       {"l1.size"},
       "L1 read bandwidth: every SM streams ld.global over half its L1"},
      {"tex",
       LoadPath::tex,
       per_block,
       F::inside_sm_cache,
       true,
       false,
       false,
       S::per_sm,
       {"tex.size"},
       "texture read bandwidth: every SM streams tex1Dfetch over half its cache"},
      {"ro",
       LoadPath::nc,
       per_block,
       F::inside_sm_cache,
       true,
       false,
       false,
       S::per_sm,
       {"ro.size"},
       "read-only read bandwidth: every SM streams ld.global.nc over half its cache"},
      {"shared",
       LoadPath::shared,
       per_block,
       F::shared_window,
       true,
       true,
       false,
       S::none,
       {},
       "shared-memory read, write and copy bandwidth of every SM"},
      // DRAM before L2: each L2 figure is judged against DRAM's rate for its op
      // (l2_residency.hpp). Not a need: --only l2.bandwidth runs without it, and says so.
      {"dram",
       LoadPath::cg,
       shared_by_all,
       F::beyond_l2,
       false,
       true,
       true,
       S::none,
       {},
       "DRAM read, write, copy and triad bandwidth: all SMs stream over 16 times the L2"},
      {"l2",
       LoadPath::cg,
       shared_by_all,
       F::inside_l2,
       false,
       true,
       false,
       S::device,
       {"l2.size"},
       "L2 read, write and copy bandwidth: all SMs stream ld.global.cg over a quarter of it"},
  };
  return table;
}

namespace {

// Windows for an SM-local cache: half its size, so that the window stays in it however the
// blocks' reserved shared memory and the replacement policy shrink what it holds.
constexpr std::uint64_t kInsideSmCacheDivisor = 2;
// Without a conclusive size: a window every L1 of a CUDA GPU holds (the smallest, Fermi's).
constexpr std::uint64_t kFallbackSmWindowBytes = 16 * 1024;
// Shared-memory windows: an eighth of the SM's shared memory (a power of two), so that eight
// blocks of a read, or four of a copy (two windows each), fit on an SM.
constexpr std::uint64_t kSharedWindowsPerSm = 8;
constexpr std::uint64_t kInsideL2Divisor = 4;
constexpr std::uint64_t kBeyondL2Factor = 16;
// Below this many L2 sizes a DRAM stream could be partly served by the L2.
constexpr std::uint64_t kLeastBeyondL2Factor = 4;
// A copy's two arrays must both fit in the device memory a footprint may take.
constexpr std::uint64_t kArraysOfACopy = 2;

std::string with_size(const std::string& what, std::uint64_t bytes) {
  return what + " (" + format_bytes(static_cast<double>(bytes)) + ")";
}

void plan_from_finding(const ProbeContext& ctx, const std::string& element, FootprintPlan& plan) {
  const Property* size = conclusive_finding(ctx.topology, element, "size");
  if (!size) return;
  plan.from_finding = element + ".size";
  plan.level_size = size->value.get<std::uint64_t>();
  plan.level_size_source = plan.from_finding + " (measured)";
}

FootprintPlan inside_sm_cache(const ProbeContext& ctx, const BandwidthTarget& target) {
  if (!finding_exists(ctx.topology, target.element, "size")) {
    throw ProbeSkipped("no " + target.element + ".size finding: no cache on the SM serves the " +
                       std::string(to_string(target.path)) + " path");
  }
  FootprintPlan plan;
  plan_from_finding(ctx, target.element, plan);
  if (plan.level_size) {
    plan.bytes = *plan.level_size / kInsideSmCacheDivisor;
    plan.rule = with_size("half of the measured " + plan.from_finding, *plan.level_size);
  } else {
    plan.bytes = kFallbackSmWindowBytes;
    plan.rule = target.element + ".size is inconclusive: a 16 KiB window, which every L1 holds";
  }
  return plan;
}

FootprintPlan shared_window(const ProbeContext& ctx) {
  FootprintPlan plan;
  const std::uint64_t per_sm = ctx.backend.facts().shared_per_sm_bytes;
  const std::uint64_t limit = ctx.backend.limits().max_shared_footprint_bytes;
  plan.bytes = std::min(std::bit_floor(per_sm / kSharedWindowsPerSm), limit);
  plan.rule = with_size("an eighth of the API's shared memory per SM, a power of two", per_sm);
  if (plan.bytes == 0) throw ProbeSkipped("the device reports no shared memory");
  return plan;
}

// The L2's size: measured when l2.size is conclusive, else the API's (said so).
FootprintPlan l2_sized(const ProbeContext& ctx) {
  FootprintPlan plan;
  plan_from_finding(ctx, "l2", plan);
  const std::uint64_t api = ctx.backend.facts().l2_bytes;
  if (api > 0) plan.api_level_size = api;
  if (!plan.level_size) {
    if (api == 0) throw ProbeSkipped("no conclusive l2.size and no L2 size from the API");
    plan.level_size = api;
    plan.level_size_source = "the API's L2 size (l2.size is not conclusive)";
  }
  return plan;
}

FootprintPlan device_footprint(const ProbeContext& ctx, const BandwidthTarget& target) {
  FootprintPlan plan = l2_sized(ctx);
  const std::uint64_t l2 = *plan.level_size;
  if (target.footprint == BandwidthFootprint::inside_l2) {
    plan.bytes = l2 / kInsideL2Divisor;
    plan.rule = with_size("a quarter of " + plan.level_size_source, l2);
  } else {
    // Beyond the larger of the two: one SM's chase may find only part of what all SMs fill.
    const std::uint64_t largest = std::max(l2, plan.api_level_size.value_or(0));
    plan.bytes = largest * kBeyondL2Factor;
    plan.rule = largest == l2
                    ? with_size("16 times " + plan.level_size_source, l2)
                    : with_size("16 times the API's L2 size, larger than " + plan.level_size_source,
                                largest);
    // Far beyond any L2: the L2's exact size matters little, but the plan read it, so the
    // runner caps the rate by it (core/inheritance.hpp).
    plan.from_finding.clear();
  }
  const std::uint64_t limit = ctx.backend.limits().max_footprint_bytes / kArraysOfACopy;
  if (plan.bytes > limit) {
    plan.bytes = limit;
    plan.rule += ", capped at half the memory the backend lets a stream use";
  }
  if (target.footprint == BandwidthFootprint::beyond_l2 &&
      plan.bytes < kLeastBeyondL2Factor * std::max(l2, plan.api_level_size.value_or(0))) {
    throw ProbeSkipped("the device memory a stream may use (" +
                       format_bytes(static_cast<double>(limit)) +
                       " per array) is less than 4 times the L2");
  }
  return plan;
}

}  // namespace

FootprintPlan plan_footprint(const ProbeContext& ctx, const BandwidthTarget& target) {
  switch (target.footprint) {
    case BandwidthFootprint::inside_sm_cache:
      return inside_sm_cache(ctx, target);
    case BandwidthFootprint::shared_window:
      return shared_window(ctx);
    case BandwidthFootprint::inside_l2:
    case BandwidthFootprint::beyond_l2:
      return device_footprint(ctx, target);
  }
  return {};
}

}  // namespace memtopo
