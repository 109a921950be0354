#pragma once
// Cross-SM first touches in the L2 (issue 15: which L2 partition is near each SM). The
// hypothesis behind it: a line that one SM wrote answers another SM's first load near or far,
// depending on whether the two SMs share a partition, and the reader's second load answers near
// either way. So a chase an SM warms itself never sees the far mode, and a map needs one SM to
// write and the others to read. On the H200 the hypothesis has not held up (docs/method.md, L2
// partition map); the probe says so. Plain data, like ChaseSpec.
#include <cstdint>
#include <vector>

namespace memtopo {

struct L2FirstTouchSpec {
  // %smid of the SM whose block writes every reader's lines first (st.global.cg).
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
  // Every SM but the warmer's, in the order they read (one at a time, the others waiting).
  std::vector<L2ReaderTouches> readers;
  double clock_khz = 0;  // SM clock during the launch (measured; 0 = unknown)
};

// Checks a spec (at least one line, at most kMaxFirstTouchLines). Throws ExperimentError.
inline constexpr std::uint32_t kMaxFirstTouchLines = 256;
void validate(const L2FirstTouchSpec& spec);

}  // namespace memtopo
