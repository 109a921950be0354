#pragma once
// Constants the line family's probes share (the SM-local rows, the L2 row, the constant caches).
#include <array>
#include <cstdint>

namespace memtopo {

// The chases that read a granularity off the gaps between misses step one 32-bit word: every
// byte of a line is on the chain, so the first load of a block is its only miss and the gaps
// between misses are the block.
inline constexpr std::uint32_t kWordBytes = 4;

// The capacity-per-stride chases use strides kLinePrime x unit: odd, so that a modulo index over
// an even set count still reaches every set at the line; 3 and 5 divide many set counts (2^5 x
// 15 sets has both), 7 is the smallest prime that rarely does.
inline constexpr std::uint64_t kLinePrime = 7;
// Rarely is not never (224 = 7 x 32 sets): when no stride kLinePrime x unit holds the prime
// times the size, the SM-local line probe tries the next of these primes, in turn, while none
// does. A set count with two of them as factors (77, 91, 143 x 2^k) is rarer still.
inline constexpr std::array<std::uint64_t, 3> kLinePrimes = {kLinePrime, 11, 13};

// Units (and so lines) are tried up to this: four times the largest line any GPU cache is known
// to have (256 B); strides of 7 KiB stay far below a page, so the TLB adds at most one miss per
// page.
inline constexpr std::uint64_t kLargestUnitBytes = 1024;

}  // namespace memtopo
