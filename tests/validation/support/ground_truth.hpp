#pragma once
// The ground truth of a simulated device description (docs/sim-format.md), fact by fact, for
// every element and property a default discovery reports: SM caches, L2, DRAM, TLB levels,
// shared memory and, where the description has a throughput model, bandwidths.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fact.hpp"

namespace memtopo::validation {

std::vector<Fact> facts_of(const nlohmann::json& description);

// The parts facts_of joins.
std::vector<Fact> sm_cache_facts(const nlohmann::json& description);  // l1 tex ro constant_*
std::vector<Fact> l2_facts(const nlohmann::json& description);
std::vector<Fact> memory_facts(const nlohmann::json& description);  // dram, tlb_*, shared
std::vector<Fact> bandwidth_facts(const nlohmann::json& description);

// The nth (0-based) sm-scope cache listing `path`: the one whose hits a chase on that path
// sees is the first; the constant L1.5 is the second on `const`.
std::optional<nlohmann::json> sm_cache_on(const nlohmann::json& description,
                                          const std::string& path, std::size_t nth = 0);
// The device-scope cache named L2, or nullptr.
const nlohmann::json* l2_of(const nlohmann::json& description);
// A description's key with its documented default.
double number_or(const nlohmann::json& object, const char* key, double fallback);

}  // namespace memtopo::validation
