#pragma once
// Reads the set-associative arrays of a simulated device description (format:
// docs/sim-format.md): a cache (size, line, sector, ways, set index, policy, paths, partitions,
// segments) and a TLB level (entries, ways, page). Every key checked; description_loader.cpp
// reads the rest of the document.
#include <nlohmann/json.hpp>

#include "backend/sim/description.hpp"
#include "backend/sim/strict_json.hpp"

namespace memtopo::sim {

// One entry of "caches". Throws DescriptionError naming the key.
CacheDescription read_cache(const nlohmann::json& value, const JsonPlace& place);

// One entry of "tlbs". Throws DescriptionError naming the key.
TlbDescription read_tlb(const nlohmann::json& value, const JsonPlace& place);

}  // namespace memtopo::sim
