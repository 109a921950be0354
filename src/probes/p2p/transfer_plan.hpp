#pragma once
// How large and how long a p2p transfer's timed repetitions are, from the rate of a first short
// one. A launch or a copy has a fixed cost (ramp-up, drain, setup: ~13 us on an H200's NVLink,
// docs/multi-gpu.md), and a 256 MiB launch there lasts ~0.7 ms: timed alone it reads ~1.5 %
// below the link's rate. So each timed repetition lasts kRepetitionSeconds at the first rate (an
// SM launch loops over its buffer `passes` times), and a copy engine's copies each last
// kCopySeconds (the cost is paid per copy: copies back to back do not hide it), within what the
// memories can spare. Slow links get fewer passes; nothing here depends on one GPU's figures.
#include <cstdint>

#include "backend/p2p.hpp"

namespace memtopo {

struct TransferPlan {
  std::uint64_t bytes = 0;   // the buffer: what one pass moves
  std::uint32_t passes = 1;  // passes over it in one timed repetition
};

// A launch or copy fixed cost of 13 us is 0.13 % of a 10 ms repetition.
inline constexpr double kRepetitionSeconds = 0.010;
// A copy of 5 ms pays 0.27 % for its setup (nvbandwidth's 512 MiB copies pay ~1 % on NVLink).
inline constexpr double kCopySeconds = 0.005;
// Buffers grow in whole 2 MiB pages.
inline constexpr std::uint64_t kBufferGranule = std::uint64_t{2} << 20;
// A bound on passes where a link is far faster than the buffer is large (and on a bad rate).
inline constexpr std::uint32_t kMaxPasses = 4096;

// `base_bytes`: the buffer the first repetition moved in one pass, at `sizing_rate` bytes per
// second; `max_bytes`: the largest buffer the memories involved can spare (never below
// base_bytes). SM transfers keep the base buffer and make passes; copies grow the buffer to
// kCopySeconds' worth (in kBufferGranule steps), then make passes. A rate that is not a
// positive number plans the base transfer unchanged.
TransferPlan plan_transfer(TransferEngine engine, std::uint64_t base_bytes, double sizing_rate,
                           std::uint64_t max_bytes);

}  // namespace memtopo
