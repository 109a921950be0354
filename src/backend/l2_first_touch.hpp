#pragma once
// Cross-SM first touches in the L2 (issue 15: which L2 partition is near each SM). One SM (the
// writer) writes every reader's lines, another (the warmer) loads them, then every other SM
// times its first and second load of its own lines. On an H100 this splits the SMs in two
// halves that do not depend on the writer: readers on the warmer's side find every line near,
// readers on the other side about half of their lines far (docs/results/nvidia-h100/
// 2026-11-24_partition-map-lines), and every second load answers near. So a chase an SM warms
// itself never sees the far mode. Plain data, like ChaseSpec.
#include <cstdint>
#include <vector>

namespace memtopo {

struct L2FirstTouchSpec {
  // %smid of the SM whose block loads every reader's lines (ld.global.cg) after another SM
  // wrote them (the backend picks the writer).
  std::uint32_t warmer_sm = 0;
  // Lines each reader times, first and second touch of each; every line is new to the L2 for
  // each call (a backend never hands the same line to two calls).
  std::uint32_t lines_per_reader = 32;
};

struct L2ReaderTouches {
  std::uint32_t sm_id = 0;
  std::vector<std::uint32_t> first_cycles;   // per line, the reader's first load (raw)
  std::vector<std::uint32_t> second_cycles;  // per line, its second load (raw)
  double overhead_cycles = 0;                // median timing overhead in the same block
};

struct L2FirstTouchResult {
  std::uint32_t warmer_sm = 0;
  std::uint32_t writer_sm = 0;
  // Every SM but the warmer's, in the order they read (one at a time, the others waiting).
  std::vector<L2ReaderTouches> readers;
  double clock_khz = 0;  // SM clock during the launch (measured; 0 = unknown)
};

// Checks a spec (at least one line, at most kMaxFirstTouchLines). Throws ExperimentError.
inline constexpr std::uint32_t kMaxFirstTouchLines = 256;
void validate(const L2FirstTouchSpec& spec);

// The capability (Backend::l2_first_touch()): one launch of the experiment, one block per SM,
// the warmer's first, then every other SM's first and second touch of its own lines. Throws
// ExperimentError for a spec it cannot run (a warmer SM that does not exist).
class L2FirstTouchExperiments {
 public:
  virtual ~L2FirstTouchExperiments() = default;
  virtual L2FirstTouchResult run_l2_first_touch(const L2FirstTouchSpec& spec) = 0;
};

}  // namespace memtopo
