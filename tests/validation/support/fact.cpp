#include "support/fact.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace memtopo::validation {
namespace {

Fact make(std::string element, std::string property, nlohmann::json truth,
          std::string tolerance) {
  Fact fact;
  fact.element = std::move(element);
  fact.property = std::move(property);
  fact.truth = std::move(truth);
  fact.tolerance = std::move(tolerance);
  return fact;
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%g %%", fraction * 100);
  return text;
}

}  // namespace

bool latency_matches(double found, double truth) {
  return std::fabs(found - truth) <= std::max(kLatencyCycles, kLatencyFraction * truth);
}

Fact exact_fact(std::string element, std::string property, nlohmann::json truth) {
  Fact fact = make(std::move(element), std::move(property), truth, "exact");
  fact.matches = [truth](const nlohmann::json& found) { return found == truth; };
  if (truth.is_number()) fact.number = truth.get<double>();
  return fact;
}

Fact within_fact(std::string element, std::string property, double truth, double tolerance,
                 std::string tolerance_text) {
  Fact fact = make(std::move(element), std::move(property), truth, std::move(tolerance_text));
  fact.matches = [truth, tolerance](const nlohmann::json& found) {
    return found.is_number() && std::fabs(found.get<double>() - truth) <= tolerance;
  };
  fact.number = truth;
  return fact;
}

Fact latency_fact(std::string element, std::string property, double cycles) {
  Fact fact = make(std::move(element), std::move(property), cycles,
                   "max(" + std::to_string(static_cast<int>(kLatencyCycles)) + " cy, " +
                       percent(kLatencyFraction) + ")");
  fact.matches = [cycles](const nlohmann::json& found) {
    return found.is_number() && latency_matches(found.get<double>(), cycles);
  };
  fact.number = cycles;
  return fact;
}

Fact relative_fact(std::string element, std::string property, double truth, double fraction) {
  return within_fact(std::move(element), std::move(property), truth, truth * fraction,
                     percent(fraction));
}

Fact hidden_fact(std::string element, std::string property, nlohmann::json truth,
                 std::string why) {
  Fact fact = exact_fact(std::move(element), std::move(property), std::move(truth));
  fact.reveal = Reveal::hidden;
  fact.why = std::move(why);
  return fact;
}

Fact absent_fact(std::string element, std::string property, std::string why) {
  Fact fact = make(std::move(element), std::move(property), nullptr, "-");
  fact.matches = [](const nlohmann::json&) { return false; };
  fact.reveal = Reveal::absent;
  fact.why = std::move(why);
  return fact;
}

}  // namespace memtopo::validation
