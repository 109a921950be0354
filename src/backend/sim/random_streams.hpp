#pragma once
// Every random draw of the simulator comes from a SplitMix64 stream whose seed is derived here,
// so that a description and a sequence of runs give the same traces on every platform.
#include <cstdint>

#include "backend/chain.hpp"

namespace memtopo::sim {

// The seed of stream `stream` under `seed`: distinct streams are statistically independent.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  return SplitMix64(seed ^ (stream * 0xD1B54A32D192ED03ull)).next();
}

}  // namespace memtopo::sim
