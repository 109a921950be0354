#pragma once
// The experiment behind l2.segments: two SMs run concurrent warm cg chases, each over its own
// 3/4 of the one-SM L2 size E. Both keep hitting when the SMs fill different segments; both
// miss when they share one (1.5 E of lines in E). Shared by the two ways the probe plans its
// pairs (from l2.partition_map, or grouping SMs spread over the id range).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/core/probe.hpp"

namespace memtopo {

// Verdicts on each chase's share of timed loads slower than the L2/DRAM threshold. Two
// 0.75 E arrays in one segment of E miss on every load under LRU or FIFO and on about 58 %
// under random replacement (a line survives 1.5 E / E other fills with probability
// exp(-1.5 x miss rate)); a pair in separate segments misses no more than a chase alone.
// Both chases must agree: one segment evicts both arrays. A pair where only one chase loses
// lines is unclear (an H100 showed SM 0 losing 30-70 % against six partner SMs whose own chases
// lost at most 12 %; averaged, that read as one segment, and in a later run both lost < 5 %).
inline constexpr double kSeparateAtMost = 0.1;
inline constexpr double kSharedAtLeast = 0.3;
// Timed loads per chase after its warm pass: a few thousand samples of the steady state.
inline constexpr std::uint32_t kSegmentTimedLoads = 4096;

enum class PairVerdict { separate, shared, unclear };

const char* to_string(PairVerdict verdict);
PairVerdict verdict_of(double slow_share_a, double slow_share_b);

// What the pairs are planned from: l2.size (E, its L2/DRAM threshold, its stride) and the SMs.
struct SegmentPlan {
  const Property* l2_size = nullptr;
  std::uint64_t one_sm_bytes = 0;  // E
  double threshold_cycles = 0;
  // The stride l2.size was measured with: the pair's chases must count lines exactly as the
  // chase that found E did.
  std::uint32_t stride = 0;
  std::uint64_t footprint = 0;  // 3/4 E, on the stride
  std::vector<std::uint32_t> sms;
};

// Skips (ProbeSkipped) without a measured l2.size with a threshold, or with one SM.
SegmentPlan plan_segments(ProbeContext& ctx);

class SegmentMeasurement {
 public:
  SegmentMeasurement(ProbeContext& ctx, const SegmentPlan& plan) : ctx_(ctx), plan_(plan) {}

  // Slow shares of chases run together, one per SM of `sms`, nothing else in the batch: a
  // device-wide cache must hold only their lines.
  std::vector<double> run_together(const std::vector<std::uint32_t>& sms, const std::string& label);

  std::uint64_t loads() const { return loads_; }
  std::uint32_t batches() const { return batches_; }

 private:
  ProbeContext& ctx_;
  const SegmentPlan& plan_;
  std::uint64_t loads_ = 0;
  std::uint32_t batches_ = 0;
};

struct PairResult {
  std::uint32_t sm_a = 0;
  std::uint32_t sm_b = 0;
  double slow_share_a = 0;
  double slow_share_b = 0;
  PairVerdict verdict = PairVerdict::unclear;
  // Every verdict but "one segment" is measured once more (the repeat's shares).
  std::optional<std::vector<double>> repeat_shares;
};

// One pair, measured; measured again unless it shared. A "separate" verdict opens a segment,
// so it must hold twice (else unclear). An unclear pair whose second run shares is one segment
// (one clear run of two chases both losing lines); otherwise it stays unclear.
// Up to `count` ids of `ids[1..]`, evenly spread over them (the first one always included).
std::vector<std::uint32_t> spread_partners(const std::vector<std::uint32_t>& ids,
                                           std::size_t count);

PairResult measure_pair(ProbeContext& ctx, SegmentMeasurement& measurement, std::uint32_t sm_a,
                        std::uint32_t sm_b);

nlohmann::json pair_json(const PairResult& pair);

}  // namespace memtopo
