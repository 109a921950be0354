#include "probes/l2/l2_partitions_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/staircase.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/region_order.hpp"

namespace memtopo {
namespace {

// Timed loads of the chase: a few thousand, so that a mode of 5 % holds a few hundred.
constexpr std::uint32_t kPartitionSamples = 4096;
// The footprint: this share of the API L2 size (well inside L2), at most half of it, and beyond
// twice the measured L1 so that L1 holds none of it (as l2.latency).
constexpr std::uint64_t kL2Fraction = 16;
constexpr std::uint64_t kMaxL2Fraction = 2;
constexpr std::uint64_t kL1Multiple = 2;
constexpr std::uint64_t kFallbackFootprintBytes = 1ull << 20;  // no API L2 size
// A far mode needs a partition besides the near one.
constexpr double kMinPartitionsWithFarMode = 2;

std::uint64_t partition_footprint(ProbeContext& ctx) {
  const std::uint64_t l2_api = ctx.backend.facts().l2_bytes;
  const std::uint64_t l1 = finding_count(ctx.topology, "l1", "size").value_or(0);
  std::uint64_t footprint =
      l2_api > 0 ? std::max(floor_power_of_two(l2_api / kL2Fraction), kL1Multiple * l1)
                 : std::max(kFallbackFootprintBytes, kL1Multiple * l1);
  if (l2_api > 0) footprint = std::min(footprint, l2_api / kMaxL2Fraction);
  footprint =
      round_down(std::min(footprint, ctx.backend.limits().max_footprint_bytes), kSmallestLineBytes);
  if (footprint < kSmallestLineBytes) throw ProbeSkipped("no footprint for an L2 chase");
  return footprint;
}

Property mode_latency(const std::string& name, const Spread& mode, double clock_khz,
                      const std::string& method, const nlohmann::json& evidence) {
  Property p;
  p.name = name;
  p.unit = "cycles";
  p.value = mode.p50;
  p.spread = mode;
  if (clock_khz > 0) p.seconds_value = mode.p50 / (clock_khz * 1e3);
  p.method = method;
  p.evidence = evidence;
  return p;
}

// How sure the count is: how close 1 / near share came to a whole number. When it rounds below
// two, the far mode (which needs a second partition) and the ratio disagree about the count.
Confidence partitions_confidence(double raw, double count) {
  Confidence confidence{integer_closeness(raw, "1 / near share")};
  if (std::round(raw) != count) {
    confidence *= methods_agreeing(1, 2,
                                   "methods: a far mode says at least 2 partitions, 1 / near "
                                   "share rounds to " +
                                       format_number(std::round(raw), 0));
  }
  return confidence;
}

// What one chase's two modes say: near and far latency, and the partition count.
struct PartitionChase {
  std::vector<double> cycles;  // overhead-corrected
  ModeSplit split;
  double clock_khz = 0;
  std::string method;
  nlohmann::json evidence;
};

PartitionChase chase_partitions(ProbeContext& ctx, std::uint64_t footprint) {
  // Every 64 KiB region in turn, random lines in each (as l2.latency): a random cycle over the
  // footprint misses a small L1 TLB on a share of its loads, which split off as a false mode.
  const std::uint32_t samples = std::min(kPartitionSamples, ctx.backend.limits().max_timed_loads);
  ChaseBuilder chase = make_chase(LoadPath::cg, footprint, kSmallestLineBytes);
  std::vector<std::uint32_t> indices = region_ordered_indices(
      footprint, kSmallestLineBytes, samples, ctx.seed, RegionCover::every_region);
  if (indices.empty()) {
    chase.random(ctx.seed);
  } else {
    chase.visiting(std::move(indices));  // a cycle: round it again where it holds fewer
  }
  chase.timed_loads(samples);
  const std::vector<ChaseSpec> batch = {std::move(chase).spec()};  // alone: nothing else in L2
  ctx.progress("l2.partitions: warm chase over " + format_bytes(static_cast<double>(footprint)));
  const Trace trace = ctx.run(batch, "l2.partitions").front();
  PartitionChase c;
  c.cycles = corrected_cycles(trace);
  c.split = split_two_modes(c.cycles);
  c.clock_khz = trace.clock_khz;
  c.method = "warm pointer chase via cg, alone on SM " + std::to_string(trace.sm_id) + ", " +
             format_bytes(static_cast<double>(footprint)) + " footprint, " +
             format_bytes(kSmallestLineBytes) + " stride, every 64 KiB region in turn, random lines in each, " +
             std::to_string(c.cycles.size()) +
             " timed loads; the sorted latencies split at Opt's change point (Otsu), accepted as "
             "two modes when >= 8 robust sigmas apart with >= 5 % each";
  c.evidence = {{"footprint_bytes", footprint},    {"sm", trace.sm_id},
                {"bimodal", c.split.bimodal},      {"threshold_cycles", c.split.threshold},
                {"far_share", c.split.slow_share}, {"separation_sigmas", c.split.separation_sigmas},
                {"reason", c.split.reason}};
  return c;
}

// One mode: every L2 hit answers alike; one partition, or partitions that answer alike.
void report_one_mode(Element& l2, const PartitionChase& c) {
  Property near = mode_latency("near_latency", c.split.fast, c.clock_khz, c.method, c.evidence);
  near.note = "one mode: every L2 hit answers alike (" + c.split.reason + ")";
  set_confidence(near, {share_within(c.cycles, c.split.fast.p50, kDescribedBand, "L2 hits")});
  Property partitions;
  partitions.name = "partitions";
  partitions.unit = "";
  partitions.source = Source::derived;
  partitions.evidence = c.evidence;
  partitions.value = 1;
  partitions.inconclusive = true;
  partitions.note = "no far mode seen from this SM: one partition, or partitions that answer alike";
  partitions.method = c.method;
  l2.set(std::move(near));
  l2.set(std::move(partitions));
}

void report_two_modes(Element& l2, const PartitionChase& c) {
  const double near_share = 1.0 - c.split.slow_share;
  Property near = mode_latency("near_latency", c.split.fast, c.clock_khz, c.method, c.evidence);
  set_confidence(near, {share(near_share, "of the loads in the near mode")});
  Property far = mode_latency("far_latency", c.split.slow, c.clock_khz, c.method, c.evidence);
  set_confidence(far, {share(c.split.slow_share, "of the loads in the far mode")});
  // SM s is near one partition of p when lines spread evenly: a near share of 1/p.
  const double raw = 1.0 / near_share;
  const double count = std::max(kMinPartitionsWithFarMode, std::round(raw));
  Property partitions;
  partitions.name = "partitions";
  partitions.unit = "";
  partitions.source = Source::derived;
  partitions.value = static_cast<int>(count);
  partitions.method =
      "1 / (share of near answers), rounded: lines spread evenly over the partitions and an SM "
      "is near one of them; from the two modes of " +
      c.method;
  partitions.evidence = c.evidence;
  partitions.evidence["raw_count"] = raw;
  set_confidence(partitions, partitions_confidence(raw, count));
  l2.set(std::move(near));
  l2.set(std::move(far));
  l2.set(std::move(partitions));
}

}  // namespace

std::string L2PartitionProbe::description() const {
  return "L2 near and far latency and partition count from the two modes of one warm L2 chase";
}

void L2PartitionProbe::run(ProbeContext& ctx) {
  const PartitionChase c = chase_partitions(ctx, partition_footprint(ctx));
  Element& l2 = element_for(ctx.topology, "l2");
  if (c.split.bimodal) {
    report_two_modes(l2, c);
  } else {
    report_one_mode(l2, c);
  }
}

}  // namespace memtopo
