// Ground truth of the caches: the SM caches behind l1, tex, ro and the constant caches, and the
// L2, in the form their probes report them.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <set>

#include "support/ground_truth.hpp"
#include "support/rotation.hpp"

namespace memtopo::validation {
namespace {

using nlohmann::json;

// Element id -> the load path its probes chase (probes/core/sm_caches.cpp).
const std::map<std::string, std::string>& sm_element_paths() {
  static const std::map<std::string, std::string> paths = {
      {"l1", "ca"}, {"tex", "tex"}, {"ro", "nc"}, {"constant_l1", "const"}};
  return paths;
}

// Ways, sets, set bits and policy of one array of `size` bytes (a cache, or one L2 segment),
// as the geometry probes report them.
std::vector<Fact> geometry_facts(const std::string& element, const json& cache,
                                 std::uint64_t size) {
  const auto line = cache.at("line_bytes").get<std::uint64_t>();
  const json& w = cache.at("ways");
  json ways = w;
  std::uint64_t sets = 0;
  if (w.is_array()) {
    sets = w.size();
  } else if (w.get<std::uint64_t>() == 0) {
    ways = size / line;
    sets = 1;
  } else {
    sets = size / (line * w.get<std::uint64_t>());
  }
  const json index = cache.value("set_index", json("modulo"));
  json set_bits;
  if (index.is_object() && index.contains("bits")) {
    set_bits = index.at("bits");
  } else if (index.is_object()) {
    set_bits = index;  // a hashed index: the probe must say what it found (none of ours)
  } else if (sets == 1) {
    set_bits = json::array();
  } else if (w.is_array() || !std::has_single_bit(sets)) {
    set_bits = {{"modulo", sets}};
  } else {
    set_bits = json::array();
    for (int b = 0; b < std::countr_zero(sets); ++b) set_bits.push_back(std::countr_zero(line) + b);
  }
  const json policy = cache.value("policy", json("lru"));
  const json policy_name = policy.is_object() ? json("weighted") : policy;

  std::vector<Fact> facts;
  Fact ways_fact = exact_fact(element, "ways", ways);
  if (ways.is_array()) {
    ways_fact.tolerance = "exact up to rotation";
    ways_fact.matches = [ways](const json& found) { return same_up_to_rotation(ways, found); };
  }
  facts.push_back(ways_fact);
  facts.push_back(exact_fact(element, "sets", sets));
  facts.push_back(exact_fact(element, "set_bits", set_bits));
  if (!w.is_array() && w.get<std::uint64_t>() == 1) {
    facts.push_back(hidden_fact(element, "policy", policy_name,
                                "one way: every policy evicts the only line"));
  } else {
    facts.push_back(exact_fact(element, "policy", policy_name));
  }
  return facts;
}

// The other SM elements whose hits come from the same cache as `element`'s.
json truly_shared_with(const json& description, const std::string& element) {
  const auto mine = sm_cache_on(description, sm_element_paths().at(element));
  std::set<std::string> shared;
  for (const auto& [other, path] : sm_element_paths()) {
    const auto theirs = sm_cache_on(description, path);
    if (other != element && mine && theirs && theirs->at("name") == mine->at("name")) {
      shared.insert(other);
    }
  }
  return json(std::vector<std::string>(shared.begin(), shared.end()));
}

Fact shared_with_fact(const json& description, const std::string& element) {
  const json truth = truly_shared_with(description, element);
  Fact fact = exact_fact(element, "shared_with", truth);
  fact.tolerance = "same set";
  fact.matches = [truth](const json& found) {
    if (!found.is_array()) return false;
    auto sorted = found.get<std::vector<std::string>>();
    std::sort(sorted.begin(), sorted.end());
    return json(sorted) == truth;
  };
  return fact;
}

// l1.carveout: the L1 at each carveout step of a unified L1 (or its one size when L1 and
// shared memory are separate arrays); a row reserving R bytes gets the smallest step >= R.
std::vector<Fact> carveout_facts(const json& description, const json& l1) {
  const auto size = l1.at("size_bytes").get<std::uint64_t>();
  const auto line = l1.at("line_bytes").get<std::uint64_t>();
  const json& shared = description.at("shared_memory");
  const bool unified = shared.value("unified_with", "") == l1.at("name").get<std::string>();
  std::map<std::uint64_t, std::uint64_t> l1_at_step;  // carveout step -> L1 bytes
  if (unified) {
    const auto steps = shared.at("carveout_steps_bytes").get<std::vector<std::uint64_t>>();
    for (std::uint64_t step : steps) l1_at_step[step] = size - (step - steps.front());
  } else {
    l1_at_step[shared.at("bytes_per_sm").get<std::uint64_t>()] = size;
  }
  json truth = json::object();
  for (const auto& [step, bytes] : l1_at_step) truth[std::to_string(step)] = bytes;
  Fact rows = exact_fact("l1", "carveout", truth);
  rows.tolerance = "each row within 1 line";
  rows.matches = [l1_at_step, line](const json& found) {
    if (!found.is_array() || found.empty()) return false;
    for (const json& row : found) {
      const auto reserved = row.at("reserved_shared_bytes").get<std::uint64_t>();
      const auto step = l1_at_step.lower_bound(reserved);
      if (step == l1_at_step.end()) return false;
      const double diff = row.at("l1_bytes").get<double>() - static_cast<double>(step->second);
      if (diff > static_cast<double>(line) || -diff > static_cast<double>(line)) return false;
    }
    return true;
  };
  std::vector<Fact> facts = {rows};
  if (unified) {
    const auto first_step = l1_at_step.begin()->first;
    facts.push_back(within_fact("l1", "unified_size", static_cast<double>(size + first_step),
                                static_cast<double>(line), "1 line"));
  }
  return facts;
}

double l2_near_latency(const json& description) {
  const json* l2 = l2_of(description);
  return l2 ? l2->at("hit_latency").get<double>() : number_or(description, "dram_latency", 0);
}

// Every fact of one SM element whose hits come from `cache`.
std::vector<Fact> one_sm_element(const json& description, const std::string& element,
                                 const json& cache) {
  const auto size = cache.at("size_bytes").get<std::uint64_t>();
  const auto line = cache.at("line_bytes").get<std::uint64_t>();
  const double hit = cache.at("hit_latency").get<double>();
  std::vector<Fact> facts = {
      within_fact(element, "size", static_cast<double>(size), static_cast<double>(line),
                  "1 line"),
      exact_fact(element, "line", line),
      latency_fact(element, "latency", hit),
  };
  if (element != "constant_l1") {
    facts.push_back(exact_fact(element, "sector", cache.value("sector_bytes", line)));
    facts.push_back(latency_fact(element, "miss_penalty", l2_near_latency(description) - hit));
  }
  for (Fact& f : geometry_facts(element, cache, size)) facts.push_back(std::move(f));
  facts.push_back(shared_with_fact(description, element));
  facts.push_back(exact_fact(element, "count_per_sm", cache.value("instances_per_sm", 1)));
  if (element == "l1") {
    for (Fact& f : carveout_facts(description, cache)) facts.push_back(std::move(f));
  }
  return facts;
}

// l2.partition_map: groups of SMs that share a near partition. Partition numbers are the
// probe's own, so a map is right when it groups the SMs it lists exactly as the truth does.
Fact partition_map_fact(const json& description, const json& l2) {
  const auto sms = description.at("sm_count").get<std::uint64_t>();
  const auto partitions = l2.value("partitions", std::uint64_t{1});
  std::vector<std::uint64_t> near(sms);
  for (std::uint64_t s = 0; s < sms; ++s) {
    near[s] = l2.contains("sm_partitions") ? l2.at("sm_partitions")[s].get<std::uint64_t>()
                                            : s % partitions;
  }
  json truth = json::array();
  for (std::uint64_t p = 0; p < partitions; ++p) {
    json group = json::array();
    for (std::uint64_t s = 0; s < sms; ++s) {
      if (near[s] == p) group.push_back(s);
    }
    if (!group.empty()) truth.push_back({{"partition", p}, {"sms", group}});
  }
  if (partitions > 1 && l2.value("partition_policy", "home") == "home") {
    return hidden_fact("l2", "partition_map", truth,
                       "lines answer near in their home partition, whoever loaded them: first "
                       "touches cannot tell which partition is near an SM");
  }
  Fact fact = exact_fact("l2", "partition_map", truth);
  fact.tolerance = "same grouping of the SMs listed";
  fact.matches = [near](const json& found) {
    if (!found.is_array() || found.empty()) return false;
    std::map<std::uint64_t, std::uint64_t> group_of;  // SM -> found group
    for (std::size_t g = 0; g < found.size(); ++g) {
      for (const json& sm : found[g].at("sms")) group_of[sm.get<std::uint64_t>()] = g;
    }
    for (const auto& [a, ga] : group_of) {
      for (const auto& [b, gb] : group_of) {
        if (a >= near.size() || b >= near.size()) return false;
        if ((ga == gb) != (near[a] == near[b])) return false;
      }
    }
    return true;
  };
  return fact;
}

}  // namespace

double number_or(const json& object, const char* key, double fallback) {
  return object.contains(key) ? object.at(key).get<double>() : fallback;
}

std::optional<json> sm_cache_on(const json& description, const std::string& path,
                                std::size_t nth) {
  for (const json& cache : description.value("caches", json::array())) {
    if (cache.at("scope") != "sm") continue;
    const json& paths = cache.at("paths");
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) continue;
    if (nth == 0) return cache;
    --nth;
  }
  return std::nullopt;
}

const json* l2_of(const json& description) {
  for (const json& cache : description.at("caches")) {
    if (cache.at("scope") == "device" && cache.at("name") == "L2") return &cache;
  }
  return nullptr;
}

std::vector<Fact> sm_cache_facts(const json& description) {
  std::vector<Fact> facts;
  for (const auto& [element, path] : sm_element_paths()) {
    const auto cache = sm_cache_on(description, path);
    if (!cache) {
      facts.push_back(absent_fact(element, "size", "no cache on the SM serves " + path));
      continue;
    }
    for (Fact& f : one_sm_element(description, element, *cache)) facts.push_back(std::move(f));
  }
  const auto l15 = sm_cache_on(description, "const", 1);
  if (!l15) {
    facts.push_back(absent_fact("constant_l15", "size", "no second constant cache on the SM"));
    return facts;
  }
  const auto line = l15->at("line_bytes").get<std::uint64_t>();
  facts.push_back(within_fact("constant_l15", "size", l15->at("size_bytes").get<double>(),
                              static_cast<double>(line), "1 line"));
  facts.push_back(exact_fact("constant_l15", "line", line));
  facts.push_back(latency_fact("constant_l15", "latency", l15->at("hit_latency").get<double>()));
  return facts;
}

std::vector<Fact> l2_facts(const json& description) {
  const json* found = l2_of(description);
  if (!found) return {absent_fact("l2", "size", "no device-scope cache named L2")};
  const json& l2 = *found;
  const auto segments = l2.value("segments", std::uint64_t{1});
  const auto partitions = l2.value("partitions", std::uint64_t{1});
  const auto line = l2.at("line_bytes").get<std::uint64_t>();
  const double one_sm = l2.at("size_bytes").get<double>() / static_cast<double>(segments);
  const double hit = l2.at("hit_latency").get<double>();
  const double far_extra = number_or(l2, "far_latency_extra", 0);
  std::vector<Fact> facts = {
      relative_fact("l2", "size", one_sm, kDeviceSizeFraction),
      relative_fact("l2", "segment_size", one_sm, kDeviceSizeFraction),
      exact_fact("l2", "segments", segments),
      exact_fact("l2", "line", line),
      exact_fact("l2", "sector", l2.value("sector_bytes", line)),
      latency_fact("l2", "latency", hit),
      latency_fact("l2", "near_latency", hit),
      latency_fact("l2", "miss_penalty", description.at("dram_latency").get<double>() - hit),
  };
  if (partitions > 1 && far_extra > 0) {
    facts.push_back(latency_fact("l2", "far_latency", hit + far_extra));
    facts.push_back(exact_fact("l2", "partitions", partitions));
  } else if (partitions > 1) {
    facts.push_back(absent_fact("l2", "far_latency", "every partition answers alike"));
    facts.push_back(hidden_fact("l2", "partitions", partitions,
                                "every partition answers alike (far_latency_extra 0)"));
  } else {
    facts.push_back(absent_fact("l2", "far_latency", "one partition"));
    facts.push_back(exact_fact("l2", "partitions", partitions));
  }
  facts.push_back(partition_map_fact(description, l2));
  for (Fact& f : geometry_facts("l2", l2, static_cast<std::uint64_t>(one_sm))) {
    facts.push_back(std::move(f));
  }
  return facts;
}

}  // namespace memtopo::validation
