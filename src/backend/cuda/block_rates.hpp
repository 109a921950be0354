#pragma once
// Rates of a launch whose blocks each timed their own span of work (host code, no CUDA).
#include <cstdint>
#include <span>

namespace memtopo {

// The launch's rate while its blocks work: the sum over the blocks of `bytes_per_block` over
// each block's own span (%globaltimer ns). Every block runs at once (one per SM), so this is
// the rate of all of them together, without the launch's start, its end and the events around
// it, which an event-timed rate includes: on an H200 those cost 3-4 % of a 1 ms launch, and a
// different share in different processes (docs/method.md, "TMA"). Blocks with no span count
// nothing; 0 when none has one.
double summed_block_rate(std::span<const unsigned long long> block_ns, double bytes_per_block);

}  // namespace memtopo
