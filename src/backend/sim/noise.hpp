#pragma once
// Measurement noise on every recorded access: symmetric jitter and rare outliers (interrupts,
// refreshes), seeded and reproducible.
#include <cstdint>

#include "backend/chain.hpp"
#include "backend/sim/description.hpp"

namespace memtopo::sim {

class Noise {
 public:
  Noise(const NoiseDescription& description, std::uint64_t seed);

  // `cycles` plus a jitter drawn uniformly from [-jitter_cycles, +jitter_cycles] (a result
  // below 0 becomes 0), plus outlier_cycles with probability outlier_probability. Draws the
  // jitter first, then the outlier, each only when configured.
  std::uint32_t apply(std::uint32_t cycles);

 private:
  NoiseDescription description_;
  SplitMix64 rng_;
  std::uint64_t jitter_span_;   // 2 * jitter_cycles + 1 values
  std::uint64_t jitter_limit_;  // draws at or above it are rejected, as SplitMix64::below does
};

}  // namespace memtopo::sim
