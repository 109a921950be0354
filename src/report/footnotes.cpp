#include "report/footnotes.hpp"

#include <stdexcept>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "report/text_table.hpp"

namespace memtopo {

namespace {

constexpr int kConfidenceDecimals = 2;
constexpr int kMaxConfidenceDecimals = 4;

// The factors a holder recorded, as the rules wrote them; entries without a rule or a number
// in [0, 1] are skipped rather than trusted.
Confidence recorded_confidence(const nlohmann::json& holder) {
  Confidence confidence;
  if (!holder.is_object() || !holder.contains("confidence_factors")) return confidence;
  const nlohmann::json& factors = holder["confidence_factors"];
  if (!factors.is_array()) return confidence;
  for (const nlohmann::json& entry : factors) {
    if (!entry.is_object() || !entry.contains("rule") || !entry["rule"].is_string() ||
        !entry.contains("value") || !entry["value"].is_number()) {
      continue;
    }
    ConfidenceFactor factor{entry["rule"].get<std::string>(), entry["value"].get<double>(),
                            entry.value("inputs", std::string())};
    try {
      confidence *= factor;
    } catch (const std::invalid_argument&) {
      // A value outside [0, 1]: not a factor any rule writes.
    }
  }
  return confidence;
}

}  // namespace

std::string Footnotes::add(const std::string& subject, const std::string& text) {
  notes_.push_back(subject + ": " + text);
  return "[" + std::to_string(notes_.size()) + "]";
}

std::string Footnotes::render(std::size_t max_width) const {
  std::string out;
  for (std::size_t i = 0; i < notes_.size(); ++i) {
    out += wrap_paragraph(notes_[i], "  [" + std::to_string(i + 1) + "] ", max_width);
  }
  return out;
}

bool is_low_confidence(std::optional<double> confidence) {
  return confidence && *confidence < kLowConfidence;
}

std::string format_confidence(double confidence) {
  std::string text = format_number(confidence, kConfidenceDecimals);
  for (int decimals = kConfidenceDecimals + 1;
       is_low_confidence(confidence) && decimals <= kMaxConfidenceDecimals &&
       std::stod(text) >= kLowConfidence;
       ++decimals) {
    text = format_number(confidence, decimals);
  }
  return text;
}

std::string explain_confidence_factors(const nlohmann::json& holder) {
  const std::string explained = recorded_confidence(holder).explain();
  return explained.empty() ? "no factors recorded" : explained;
}

std::string low_confidence_mark(const std::string& subject, std::optional<double> confidence,
                                const nlohmann::json& holder, Footnotes& notes) {
  if (!is_low_confidence(confidence)) return "";
  return "~ " + notes.add(subject, "low confidence " + format_confidence(*confidence) + ": " +
                                       explain_confidence_factors(holder));
}

}  // namespace memtopo
