#include "backend/sim/noise.hpp"

#include <algorithm>

namespace memtopo::sim {

Noise::Noise(const NoiseDescription& description, std::uint64_t seed)
    : description_(description),
      rng_(seed),
      jitter_span_(2 * std::uint64_t{description.jitter_cycles} + 1),
      jitter_limit_(UINT64_MAX - UINT64_MAX % jitter_span_) {}

std::uint32_t Noise::apply(std::uint32_t cycles) {
  std::int64_t noisy = cycles;
  if (description_.jitter_cycles > 0) {
    // The draw of SplitMix64::below(jitter_span_), with its rejection limit computed once:
    // this runs for every record.
    std::uint64_t draw;
    do {
      draw = rng_.next();
    } while (draw >= jitter_limit_);
    noisy += static_cast<std::int64_t>(draw % jitter_span_) - description_.jitter_cycles;
    if (noisy < 0) noisy = 0;
  }
  if (description_.outlier_probability > 0 && rng_.uniform() < description_.outlier_probability) {
    noisy += description_.outlier_cycles;
  }
  return static_cast<std::uint32_t>(std::min<std::int64_t>(noisy, UINT32_MAX));
}

}  // namespace memtopo::sim
