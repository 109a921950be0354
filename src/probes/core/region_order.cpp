#include "probes/core/region_order.hpp"

#include <algorithm>

#include "backend/chain.hpp"

namespace memtopo {

std::vector<std::uint32_t> region_ordered_indices(std::uint64_t footprint,
                                                  std::uint32_t stride_bytes,
                                                  std::uint32_t samples, std::uint64_t seed,
                                                  RegionCover cover) {
  std::vector<std::uint32_t> indices;
  if (stride_bytes == 0 || samples == 0) return indices;
  const std::uint64_t slots = std::max<std::uint64_t>(kRegionBytes / stride_bytes, 1);
  const std::uint64_t in_footprint = footprint / kRegionBytes;
  const std::uint64_t regions = cover == RegionCover::every_region
                                    ? in_footprint
                                    : std::min((samples + slots - 1) / slots, in_footprint);
  if (regions == 0) return indices;
  const std::uint64_t per_region =
      cover == RegionCover::every_region
          ? std::clamp<std::uint64_t>((samples + regions - 1) / regions, 1, slots)
          : slots;
  SplitMix64 rng(seed);
  std::vector<std::uint32_t> region(slots);
  for (std::uint64_t r = 0; r < regions && indices.size() < samples; ++r) {
    const std::uint64_t base_word = r * kRegionBytes / 4;
    for (std::uint64_t e = 0; e < slots; ++e) {
      region[e] = static_cast<std::uint32_t>(base_word + e * stride_bytes / 4);
    }
    for (std::uint64_t i = slots - 1; i > 0; --i) {  // Fisher-Yates
      std::swap(region[i], region[rng.below(i + 1)]);
    }
    indices.insert(indices.end(), region.begin(),
                   region.begin() + static_cast<std::ptrdiff_t>(per_region));
  }
  if (indices.size() > samples) indices.resize(samples);
  return indices;
}

}  // namespace memtopo
