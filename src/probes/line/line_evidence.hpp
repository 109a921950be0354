#pragma once
// The SM-local line finding's method and evidence: the plan, every stride's verdict and search,
// both paths' inferences, the cost.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/linesize.hpp"
#include "probes/line/capacity_searches.hpp"
#include "probes/line/line_measurement.hpp"
#include "probes/line/stride_ladders.hpp"

namespace memtopo {

// What both paths' chases and inferences say.
struct LinePaths {
  const LinePlan& plan;
  const std::vector<CapacitySearch>& searches;
  const LineInference& prime;
  const PowerOfTwoLine& power_of_two;
  // The power-of-two path's confidence with its search's edge, when it has a line.
  std::optional<double> power_of_two_confidence;
};

// Per stride of the plan's prime ladder: its probe verdict, its class, its search and capacity.
nlohmann::json prime_strides_evidence(const LinePlan& plan,
                                      const std::vector<CapacitySearch>& searches,
                                      const LineInference& inference);

std::string line_method(const LineMeasurement& measurement, const LinePlan& plan);

nlohmann::json line_evidence(const LineMeasurement& measurement, const LinePaths& paths);

}  // namespace memtopo
