#pragma once
// The property of core/inheritance.hpp, checked from outside the runner: no value is surer than
// a finding that its probe read from an earlier probe. A watch of the check's own notes what each
// probe read (with the confidence it had then); at each probe's end the check notes which
// properties it wrote. At the end, every property with a confidence must be at most as sure as
// each of its writer's inputs (a bound taken as its value counts as even odds, one read through
// bound_finding as nothing), and its confidence must be the product of its confidence_factors.
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/topology.hpp"
#include "probes/core/findings.hpp"

namespace memtopo::testing {

class PlanInputsCheck {
 public:
  explicit PlanInputsCheck(const Topology& topology);

  // Call after every probe, however it ended: what changed since the last call is its writing.
  void probe_finished(const std::string& probe_id);
  // One line per value surer than an input of its probe, or whose factors do not multiply to it.
  std::vector<std::string> violations() const;
  // How many (value, input) pairs violations() compares: a check that compared none tested
  // nothing.
  std::size_t comparisons() const;

 private:
  using Version = std::tuple<nlohmann::json, std::optional<double>, std::string, std::string, bool>;
  static Version version_of(const Property& p);
  std::map<std::string, Version> versions_now() const;

  const Topology& topology_;
  std::map<std::string, Version> at_last_boundary_;              // "element.property" -> it
  std::map<std::string, std::string> writer_;                    // "element.property" -> probe
  std::map<std::string, std::map<std::string, double>> inputs_;  // probe -> finding -> conf.
  std::map<std::string, double> reads_;                          // of the probe running now
  FindingReadWatch watch_;
};

}  // namespace memtopo::testing
