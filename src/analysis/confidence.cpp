#include "analysis/confidence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "analysis/stats.hpp"

namespace memtopo {

namespace {

ConfidenceFactor make(const char* rule, double value, std::string inputs) {
  return {rule, std::clamp(value, 0.0, 1.0), std::move(inputs)};
}

std::string of(std::size_t k, std::size_t n, const std::string& what) {
  return std::to_string(k) + " of " + std::to_string(n) + (what.empty() ? "" : " " + what);
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

}  // namespace

Confidence::Confidence(std::initializer_list<ConfidenceFactor> factors) {
  for (const auto& f : factors) *this *= f;
}

Confidence& Confidence::operator*=(const ConfidenceFactor& factor) {
  if (!(factor.value >= 0 && factor.value <= 1)) {
    throw std::invalid_argument("confidence factor '" + factor.rule + "' is outside [0, 1]");
  }
  value_ *= factor.value;
  factors_.push_back(factor);
  return *this;
}

Confidence& Confidence::operator*=(const Confidence& other) {
  for (const auto& f : other.factors_) *this *= f;
  return *this;
}

const ConfidenceFactor* Confidence::weakest() const {
  const auto it = std::min_element(factors_.begin(), factors_.end(),
                                   [](const auto& a, const auto& b) { return a.value < b.value; });
  return it == factors_.end() ? nullptr : &*it;
}

nlohmann::json Confidence::evidence() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : factors_) {
    out.push_back({{"rule", f.rule}, {"value", f.value}, {"inputs", f.inputs}});
  }
  return out;
}

std::string Confidence::explain() const {
  std::vector<const ConfidenceFactor*> sorted;
  for (const auto& f : factors_) sorted.push_back(&f);
  // Weakest first: the reason a reader looks for.
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto* a, const auto* b) { return a->value < b->value; });
  std::string text;
  for (const auto* f : sorted) {
    if (!text.empty()) text += "; ";
    text += f->rule + " " + number(f->value);
    if (!f->inputs.empty()) text += " (" + f->inputs + ")";
  }
  return text;
}

ConfidenceFactor agreement(std::size_t agreeing, std::size_t checks, const std::string& what) {
  if (agreeing > checks) throw std::invalid_argument("agreement: more agreeing than checks");
  const double value = (static_cast<double>(agreeing) + 1.0) / (static_cast<double>(checks) + 2.0);
  return make("agreement", value, of(agreeing, checks, what));
}

ConfidenceFactor share(double fraction, const std::string& what) {
  if (std::isnan(fraction)) throw std::invalid_argument("share: NaN");
  return make("share", fraction, number(fraction) + (what.empty() ? "" : " " + what));
}

ConfidenceFactor share_within(std::span<const double> samples, double center, double relative,
                              const std::string& what) {
  const double fraction = fraction_within(samples, center, relative);
  return make("share_within", fraction,
              number(fraction) + " of " + std::to_string(samples.size()) + " " +
                  (what.empty() ? "samples" : what) + " within " + number(100 * relative) +
                  " % of " + number(center));
}

ConfidenceFactor mode_separation(double valley_ratio, const std::string& what) {
  if (std::isnan(valley_ratio)) throw std::invalid_argument("mode_separation: NaN");
  return make("mode_separation", 1.0 - valley_ratio,
              "valley at " + number(valley_ratio) + " of the lower peak" +
                  (what.empty() ? "" : " " + what));
}

ConfidenceFactor integer_closeness(double raw, const std::string& what) {
  if (!std::isfinite(raw)) throw std::invalid_argument("integer_closeness: not finite");
  const double off = std::abs(raw - std::round(raw));
  return make(
      "integer_closeness", 1.0 - 2.0 * off,
      (what.empty() ? "" : what + " ") + number(raw) + " rounded to " + number(std::round(raw)));
}

ConfidenceFactor octave_closeness(double raw, const std::string& what) {
  if (!(raw > 0) || !std::isfinite(raw)) {
    throw std::invalid_argument("octave_closeness: needs a positive ratio");
  }
  const double octaves = std::log2(raw);
  const double off = std::abs(octaves - std::round(octaves));
  return make("octave_closeness", 1.0 - 2.0 * off,
              (what.empty() ? "" : what + " ") + number(raw) + ", " + number(off) +
                  " octaves from " + number(std::exp2(std::round(octaves))));
}

ConfidenceFactor contrast(double observed, double full, const std::string& what) {
  if (std::isnan(observed) || std::isnan(full)) throw std::invalid_argument("contrast: NaN");
  const double value = full > 0 ? observed / full : 0.0;
  return make("contrast", value,
              (what.empty() ? "" : what + " ") + number(observed) + " of " + number(full));
}

ConfidenceFactor methods_agreeing(std::size_t agreeing, std::size_t methods,
                                  const std::string& what) {
  if (methods == 0 || agreeing > methods) {
    throw std::invalid_argument("methods_agreeing: needs 0 < methods, agreeing <= methods");
  }
  return make("methods_agreeing", static_cast<double>(agreeing) / static_cast<double>(methods),
              of(agreeing, methods, what.empty() ? "methods" : what));
}

ConfidenceFactor inherited(double confidence, const std::string& from) {
  if (std::isnan(confidence)) throw std::invalid_argument("inherited: NaN");
  return make("inherited", confidence, "from " + from);
}

ConfidenceFactor inherited_cap(double own, double least, const std::string& from) {
  if (std::isnan(own) || std::isnan(least)) throw std::invalid_argument("inherited_cap: NaN");
  const double factor = least >= own ? 1.0 : least / own;
  return make("inherited", factor,
              "at most " + number(least) + ", " + from + "; its own evidence gives " + number(own));
}

ConfidenceFactor weakest_of(std::span<const double> confidences, const std::string& what) {
  if (confidences.empty()) throw std::invalid_argument("weakest_of: no confidences");
  const double low = *std::min_element(confidences.begin(), confidences.end());
  if (std::isnan(low)) throw std::invalid_argument("weakest_of: NaN");
  return make("weakest_of", low,
              "least of " + std::to_string(confidences.size()) + (what.empty() ? "" : " " + what));
}

ConfidenceFactor edge(double confidence, const std::string& what) {
  if (std::isnan(confidence)) throw std::invalid_argument("edge: NaN");
  return make("edge", confidence, what);
}

ConfidenceFactor capacity_agreement(double accounted_bytes, double measured_bytes,
                                    const std::string& what) {
  if (!(accounted_bytes > 0) || !(measured_bytes > 0) || !std::isfinite(accounted_bytes) ||
      !std::isfinite(measured_bytes)) {
    throw std::invalid_argument("capacity_agreement: needs two positive capacities");
  }
  const double octaves = std::abs(std::log2(accounted_bytes / measured_bytes));
  return make("capacity_agreement", 1.0 - 2.0 * octaves,
              (what.empty() ? "" : what + " ") + number(accounted_bytes) + " B against " +
                  number(measured_bytes) + " B measured, " + number(octaves) + " octaves apart");
}

}  // namespace memtopo
