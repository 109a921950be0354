#pragma once
// Chains that stay in one page-sized region at a time, so that a chase's translations miss at
// most once per region it enters (the TLB's miss is then a tail of a few per cent, never a mode of
// the level's latency). Regions of kRegionBytes: no larger than any page size GPUs map device
// memory with (64 KiB on Ampere and Ada, 2 MiB and more on Hopper).
#include <cstdint>
#include <vector>

namespace memtopo {

inline constexpr std::uint64_t kRegionBytes = 64 * 1024;

enum class RegionCover {
  // As many whole regions as `samples` loads need, from the first (each element loaded once: a
  // cold chase that touches a page's lines together).
  whole_regions,
  // Every region of the footprint, an equal share of `samples` in each (at least one): a warm
  // chase spread over the whole footprint. A random cycle over 64 pages of 64 KiB against an L1
  // TLB of 32 entries (an L40-like device) added the TLB's miss to half of its L2 hits.
  every_region,
};

// Word indices (4-byte words from the footprint's start) of a chain over `footprint` with one
// element per `stride_bytes`: regions in address order, random order inside each (seeded), at
// most `samples` elements. Empty when the footprint holds less than one region.
std::vector<std::uint32_t> region_ordered_indices(std::uint64_t footprint,
                                                  std::uint32_t stride_bytes,
                                                  std::uint32_t samples, std::uint64_t seed,
                                                  RegionCover cover);

}  // namespace memtopo
