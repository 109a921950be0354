#pragma once
// `memtopo compare A.json B.json`: two runs (commits, GPUs, machines) aligned element by element
// and property by property, each pair judged against the runs' own spreads. A difference within
// the spread is not a change. docs/compare.md states the rules; this is where they live.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/topology.hpp"

namespace memtopo {

// What a pair of values is, in the order a reader cares about.
enum class Verdict {
  changed,              // both conclusive, and apart by more than the spread allows
  became_inconclusive,  // conclusive in A, inconclusive (or a bound) in B
  became_conclusive,    // the other way round
  confidence_crossed,   // the values agree, but one confidence is below 0.5 and the other not
  only_in_a,            // the property (or element) is missing from B
  only_in_b,
  within_spread,  // the values differ by less than the spread (or the resolution) allows
  both_inconclusive,
  not_judged,  // a table (list of objects) that differs: compared by eye, not by rule
  same,
};
const char* to_string(Verdict verdict);
// changed, became_*, confidence_crossed and only_in_*: what makes `compare` exit non-zero.
bool is_difference(Verdict verdict);

// The judgement's knobs, named so that the documentation and tests can quote them.
struct CompareRules {
  // Two spread-backed values differ only beyond this many combined p5-p95 half-widths
  // (sqrt(hA^2 + hB^2)): robust, where a standard deviation grows with a few outliers (a 33 vs
  // 23 cycle L1 with 0.1 % of loads at +300 cycles has sigma 3.4 but a half-width of 1) ...
  double range_factor = 1.0;
  // ... and beyond this fraction of the larger value (a latency of 23 vs 23.1 cycles with a
  // spread of 0 is one quantisation step, not a change) ...
  double relative_floor = 0.01;
  // ... and when their p5-p95 ranges do not overlap.
  // Confidences on either side of this are a difference even where the values agree.
  double confidence_threshold = 0.5;
};

struct PropertyComparison {
  std::string element;
  std::string property;
  std::string unit;
  nlohmann::json value_a;  // null where absent or inconclusive without a bound
  nlohmann::json value_b;
  bool inconclusive_a = false;
  bool inconclusive_b = false;
  std::optional<double> confidence_a;
  std::optional<double> confidence_b;
  std::optional<double> delta;      // b - a, for two numbers
  std::optional<double> tolerance;  // the largest |delta| that is not a change, where one applies
  Verdict verdict = Verdict::same;
  std::string rule;  // which rule judged it: "spread", "resolution", "exact", ...
  // A table's rows that differ, in words: "3 of 9 differ" and "rows 2, 5, 7 (cycles)".
  std::string table_rows_differ;
  std::string table_difference_detail;
  Bound bound_a = Bound::none;  // the value is only a bound (inconclusive too)
  Bound bound_b = Bound::none;
};

struct ProbeStatusChange {
  std::string probe_id;
  std::string status_a;  // "" where the run did not have the probe
  std::string status_b;
};

// One side's identity, for the header.
struct RunSummary {
  std::string origin;  // the file name given
  std::string device;
  std::string git_describe;
  std::string timestamp_utc;
  bool simulated = false;
  std::string sim_file;
};

struct Comparison {
  RunSummary a;
  RunSummary b;
  CompareRules rules;
  std::vector<PropertyComparison> properties;  // A's order, then what only B has
  std::vector<ProbeStatusChange> probe_changes;
  bool has_differences() const;
  std::size_t count(Verdict verdict) const;
};

Comparison compare_topologies(const Topology& a, const std::string& origin_a, const Topology& b,
                              const std::string& origin_b, const CompareRules& rules = {});

// The judgement of one property present in both runs (exposed for the tests).
PropertyComparison compare_property(const std::string& element, const Property& a,
                                    const Property& b, const CompareRules& rules);

}  // namespace memtopo
