#pragma once
// How large and how long a p2p transfer's timed repetitions are, from the rate of a first short
// one. A launch or a copy has a fixed cost (ramp-up, drain, setup: ~13 us on an H200's NVLink,
// docs/multi-gpu.md), and a 256 MiB launch there lasts ~0.7 ms: timed alone it reads ~1.5 %
// below the link's rate. So an SM launch loops over its buffer `passes` times to last
// kSmRepetitionSeconds at the first rate, and a copy engine's copies each last kCopySeconds (the
// cost is paid per copy: copies back to back do not hide it), `passes` of them making
// kCopyRepetitionSeconds, within what the memories can spare. Slow links get fewer passes;
// nothing here depends on one GPU's figures.
#include <cstdint>

#include "backend/p2p.hpp"

namespace memtopo {

struct TransferPlan {
  std::uint64_t bytes = 0;   // the buffer: what one pass moves
  std::uint32_t passes = 1;  // passes over it in one timed repetition
};

// A launch's fixed cost of 13 us is 0.05 % of 25 ms: on two H200s an SM read of the peer, queued
// (queued_timing.hpp), read 375.9 GB/s in 10 ms launches and 376.3 in 25 ms ones, where
// nvbandwidth's 22 ms launches read 376.1-376.3 in the same call.
inline constexpr double kSmRepetitionSeconds = 0.025;
// Two copies of kCopySeconds: the fixed cost is paid per copy, longer repetitions gain nothing.
inline constexpr double kCopyRepetitionSeconds = 0.010;
// A copy of 5 ms pays 0.27 % for its setup (nvbandwidth's 512 MiB copies pay ~1 % on NVLink).
inline constexpr double kCopySeconds = 0.005;
// Buffers grow in whole 2 MiB pages.
inline constexpr std::uint64_t kBufferGranule = std::uint64_t{2} << 20;
// A bound on passes where a link is far faster than the buffer is large (and on a bad rate).
inline constexpr std::uint32_t kMaxPasses = 4096;

// `base_bytes`: the buffer the first repetition moved in one pass, at `sizing_rate` bytes per
// second; `max_bytes`: the largest buffer the memories involved can spare (never below
// base_bytes). SM transfers keep the base buffer and make passes for kSmRepetitionSeconds;
// copies grow the buffer to kCopySeconds' worth (in kBufferGranule steps), then make passes for
// kCopyRepetitionSeconds. A rate that is not a
// positive number plans the base transfer unchanged.
TransferPlan plan_transfer(TransferEngine engine, std::uint64_t base_bytes, double sizing_rate,
                           std::uint64_t max_bytes);

}  // namespace memtopo
