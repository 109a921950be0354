#pragma once
// The replacement class a cache shows without its ways: does a working set it reuses survive a
// stream many times its size? LRU, FIFO and random replacement all evict it; a scan-resistant
// policy (lines inserted at low priority, promoted on reuse) keeps it. Measured on an H100: a
// reused 16 KiB chase survived 8 MiB x 16 sequential passes at 100 % hits.
#include <optional>
#include <string>

#include "backend/experiment.hpp"
#include "model/topology.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

// The `policy` property from a scan test on `path` (baselines via `next_level_path`), planned
// from the element's measured size and line; nullopt when the size is not measured. The value
// is "scan_resistant" when the reused lines survive a stream that went through the cache (the
// stream's own second pass misses where the cache's size forces it to); otherwise null and
// inconclusive: an eviction fits LRU, FIFO and random alike, which only the ways-based tests
// tell apart, and a survival of a stream that did not fill the cache says nothing.
std::optional<Property> scan_resistance_policy(ProbeContext& ctx, const std::string& element,
                                               LoadPath path, LoadPath next_level_path);

// The same test for a device-wide cache (L2): every chase runs alone (a batch of one), since
// concurrent chases would share the cache, and accesses slower than `threshold_cycles` (the
// size probe's, between the cache and DRAM) miss: no load path skips only this cache.
std::optional<Property> scan_resistance_policy_alone(ProbeContext& ctx, const std::string& element,
                                                     LoadPath path, double threshold_cycles);

}  // namespace memtopo
