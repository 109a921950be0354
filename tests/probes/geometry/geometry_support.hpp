#pragma once
// What the geometry family's tests share: the ground truth of a description's cache, the check
// that every agreement behind a confidence counted agreeing checks only, and a backend that
// records the largest batch (a device-wide row must run every chase alone).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/topology.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {

// What a description configures for one cache, in the findings' terms.
struct GeometryTruth {
  nlohmann::json ways;  // number, or list for unequal sets
  std::uint64_t sets = 0;
  nlohmann::json set_bits;  // bits, {"modulo": sets}, or {"xor": [[bits], ...]} as configured
  std::string policy;
};
GeometryTruth geometry_truth(const std::string& file, const std::string& cache = "L1");

// A set_bits value {"xor": [[bits], ...]} spans the configured functions' space (the functions
// are only defined up to their span: renumbering the sets XORs index bits together).
void expect_same_index_functions(const nlohmann::json& found, const nlohmann::json& truth);

// Every agreement factor of a finding's confidence counted agreeing checks only ("k of k ..."):
// on a clean simulated device no pass, set or chase contradicts the value. "0 of 0" (nothing
// could be checked) passes too.
void expect_every_check_agreed(const Property& finding);

// Records the largest batch the probes ask for while `watching` is set.
class BatchSizeWatcher : public CountingBackend {
 public:
  using CountingBackend::CountingBackend;
  std::vector<Trace> run(std::span<const ChaseSpec> batch) override;
  bool watching = false;
  std::size_t largest = 0;
};

}  // namespace memtopo::testing
