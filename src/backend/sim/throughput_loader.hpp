#pragma once
// Reads the optional "throughput" object of a simulated device description.
#include <nlohmann/json.hpp>

#include "backend/sim/description.hpp"
#include "backend/sim/strict_json.hpp"

namespace memtopo::sim {

// Parses and validates `value` (the "throughput" object) against the description's caches,
// which its cache_bytes_per_cycle names. Throws DescriptionError naming the key.
ThroughputDescription read_throughput(const nlohmann::json& value, const JsonPlace& place,
                                      const std::vector<CacheDescription>& caches);

}  // namespace memtopo::sim
