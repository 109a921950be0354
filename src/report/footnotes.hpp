#pragma once
// The console's numbered notes: a cell shows "[n]", the Notes section says what it means (why a
// value is inconclusive or only a bound, why its confidence is low). And the words for a
// confidence: its number, whether it is low, and its factors weakest first.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace memtopo {

class Footnotes {
 public:
  // Adds the note "<subject>: <text>" and returns its mark, "[n]".
  std::string add(const std::string& subject, const std::string& text);

  // "  [n] subject: text" per note, each wrapped to `max_width` columns (0: unwrapped) with
  // its continuation lines under its text.
  std::string render(std::size_t max_width) const;

  bool empty() const { return notes_.empty(); }
  // "subject: text" of note [i + 1], for renderers of other formats.
  const std::vector<std::string>& items() const { return notes_; }

 private:
  std::vector<std::string> notes_;
};

// Below kLowConfidence (analysis/confidence.hpp): the console marks the value `~`.
bool is_low_confidence(std::optional<double> confidence);

// "0.95", "0.31": two decimals, more where two would round a low confidence up to the
// threshold (0.499 reads "0.499", not "0.5").
std::string format_confidence(double confidence);

// Why a confidence is what it is, from the `confidence_factors` of `holder` (a property's
// evidence, or a table row), weakest first: "methods_agreeing 0.5 (1 of 2 methods); agreement
// 0.9 (8 of 8 passes)"; "no factors recorded" when there are none (older JSON, or a value
// written before its probe recorded them). Malformed entries are skipped.
std::string explain_confidence_factors(const nlohmann::json& holder);

// The mark of a low confidence, "~ [n]", after adding its note "<subject>: low confidence
// 0.31: <factors>"; "" when `confidence` is not low.
std::string low_confidence_mark(const std::string& subject, std::optional<double> confidence,
                                const nlohmann::json& holder, Footnotes& notes);

}  // namespace memtopo
