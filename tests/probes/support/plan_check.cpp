#include "support/plan_check.hpp"

#include <cmath>
#include <cstdio>

#include "probes/core/inheritance.hpp"

namespace memtopo::testing {
namespace {

// Rounding in a product of a dozen factors.
constexpr double kTolerance = 1e-9;

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", x);
  return text;
}

double product_of_factors(const Property& p) {
  double product = 1;
  const auto factors = p.evidence.is_object()
                           ? p.evidence.value("confidence_factors", nlohmann::json::array())
                           : nlohmann::json::array();
  for (const auto& factor : factors) product *= factor.at("value").get<double>();
  return product;
}

}  // namespace

PlanInputsCheck::Version PlanInputsCheck::version_of(const Property& p) {
  return {p.value, p.confidence, p.method, p.note, p.inconclusive};
}

std::map<std::string, PlanInputsCheck::Version> PlanInputsCheck::versions_now() const {
  std::map<std::string, Version> out;
  for (const Element& e : topology_.elements) {
    for (const Property& p : e.properties) out.emplace(e.id + "." + p.name, version_of(p));
  }
  return out;
}

PlanInputsCheck::PlanInputsCheck(const Topology& topology)
    : topology_(topology),
      at_last_boundary_(versions_now()),
      watch_(topology, [this](std::string_view element, const Property& p, FindingRead how) {
        const std::string key = std::string(element) + "." + p.name;
        const auto before = at_last_boundary_.find(key);
        // Only a finding as an earlier probe left it is an input.
        if (before == at_last_boundary_.end() || !(before->second == version_of(p))) return;
        // A bound taken as the value is at most even odds; one side of a bound caps nothing.
        if (how == FindingRead::bound_side) return;
        if (p.confidence) {
          reads_.emplace(key, *p.confidence);
        } else if (p.bound != Bound::none) {
          reads_.emplace(key + " (a bound)", kBoundReadAsValue);
        }
      }) {}

void PlanInputsCheck::probe_finished(const std::string& probe_id) {
  auto now = versions_now();
  for (const auto& [key, version] : now) {
    const auto before = at_last_boundary_.find(key);
    if (before == at_last_boundary_.end() || !(before->second == version)) writer_[key] = probe_id;
  }
  inputs_[probe_id] = std::move(reads_);
  reads_.clear();
  at_last_boundary_ = std::move(now);
}

std::vector<std::string> PlanInputsCheck::violations() const {
  std::vector<std::string> out;
  for (const Element& e : topology_.elements) {
    for (const Property& p : e.properties) {
      if (!p.confidence) continue;
      const std::string key = e.id + "." + p.name;
      if (std::fabs(product_of_factors(p) - *p.confidence) > kTolerance) {
        out.push_back(key + ": confidence " + number(*p.confidence) +
                      " is not the product of its factors, " + number(product_of_factors(p)));
      }
      const auto writer = writer_.find(key);
      if (writer == writer_.end()) continue;
      const auto inputs = inputs_.find(writer->second);
      if (inputs == inputs_.end()) continue;
      for (const auto& [input, confidence] : inputs->second) {
        if (*p.confidence > confidence + kTolerance) {
          out.push_back(key + " " + number(*p.confidence) + " (written by " + writer->second +
                        ") is surer than " + input + " " + number(confidence) +
                        ", which its plan read");
        }
      }
    }
  }
  return out;
}

std::size_t PlanInputsCheck::comparisons() const {
  std::size_t n = 0;
  for (const Element& e : topology_.elements) {
    for (const Property& p : e.properties) {
      const auto writer = writer_.find(e.id + "." + p.name);
      if (!p.confidence || writer == writer_.end()) continue;
      if (const auto inputs = inputs_.find(writer->second); inputs != inputs_.end())
        n += inputs->second.size();
    }
  }
  return n;
}

}  // namespace memtopo::testing
