#pragma once
// Ground truth for the SM-local cache probes, read from a description file: which cache answers
// an element's load path, and so which elements share storage and how many instances they have.
#include <map>
#include <optional>
#include <set>
#include <string>

#include "support/probe_harness.hpp"

namespace memtopo::testing {

// Element id -> the load path its probes use (probes/core/sm_caches.cpp), in the description's names.
inline const std::map<std::string, std::string>& sm_element_paths() {
  static const std::map<std::string, std::string> paths = {
      {"l1", "ca"}, {"tex", "tex"}, {"ro", "nc"}, {"constant_l1", "const"}};
  return paths;
}

// The first sm-scope cache listing the element's path: the one its hits come from. None when no
// cache on the SM serves the path (its loads go straight to L2).
inline std::optional<nlohmann::json> answering_cache(const SimTruth& truth,
                                                     const std::string& element) {
  const std::string& path = sm_element_paths().at(element);
  for (const auto& cache : truth.description.at("caches")) {
    if (cache.at("scope") != "sm") continue;
    for (const auto& listed : cache.at("paths")) {
      if (listed == path) return cache;
    }
  }
  return std::nullopt;
}

// The other elements whose hits come from the same cache as `element`'s.
inline std::set<std::string> truly_shared_with(const SimTruth& truth, const std::string& element) {
  std::set<std::string> shared;
  const auto mine = answering_cache(truth, element);
  for (const auto& [other, path] : sm_element_paths()) {
    const auto theirs = answering_cache(truth, other);
    if (other != element && mine && theirs && theirs->at("name") == mine->at("name")) {
      shared.insert(other);
    }
  }
  return shared;
}

// Probe ids that measure what the SM-cache probes plan from: every element's size and line.
inline std::vector<std::string> sm_cache_prerequisites() {
  std::vector<std::string> ids;
  for (const auto& [element, path] : sm_element_paths()) {
    ids.push_back(element + ".size");
    ids.push_back(element + ".sector");
    ids.push_back(element + ".line");
  }
  return ids;
}

inline const char* const kSmCacheSims[] = {
    "tests/probes/sims/kepler-like.json",
    "tests/probes/sims/maxwell-like.json",
    "tests/probes/sims/hopper-like-small.json",
};

}  // namespace memtopo::testing
