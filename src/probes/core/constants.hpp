#pragma once
// Constants that several probe families share, one name each. A constant only one probe uses
// stays in that probe, named there.
#include <cstdint>

namespace memtopo {

// No cache line or sector is smaller than this: the stride that touches every line of a cache
// whose line is not measured yet (the size probes' stride, the fallback of every probe that
// would use a measured line).
inline constexpr std::uint32_t kSmallestLineBytes = 32;

// Timed loads of a warm baseline chase (the hits of the element under test, or of the level
// behind it): enough for a p5 and a p95 that hold still between runs.
inline constexpr std::uint32_t kBaselineSamples = 2048;

// Timed passes over a chain: a line that misses is slow on every pass, an outlier (an interrupt,
// a refresh) only once, so two passes tell them apart.
inline constexpr std::uint32_t kTimedPasses = 2;

// A chase on an element's own path over this many times its size misses it on nearly every line
// (all of them under LRU or FIFO, most under random replacement), whatever answers the misses.
inline constexpr std::uint64_t kMissReferenceCapacities = 4;

// A latency's p50 describes the samples within this share of it (10 %): the band of share_within
// (analysis/confidence.hpp) for every latency.
inline constexpr double kDescribedBand = 0.1;

// A footprint every data cache holds (1 KiB, where the thesis starts its size search): the
// footprint of warm baselines, the first step of every size search, and what a chase covers
// where no size is measured yet.
inline constexpr std::uint64_t kFitsAnyCacheBytes = 1024;

}  // namespace memtopo
