#pragma once
// What `memtopo compare` prints: a console table of what changed, and the machine form
// (--json FILE), schema "memtopo-compare/2" (docs/compare.md lists its keys).
#include <string>

#include <nlohmann/json.hpp>

#include "report/compare.hpp"

namespace memtopo {

inline constexpr const char* kCompareSchema = "memtopo-compare/2";

// The header (both runs), the differences, then what agrees within the spreads, then (with
// `all`) what is the same, each a table within 120 columns; probe status changes, a summary.
std::string render_comparison_text(const Comparison& comparison, bool all);

// Every property's comparison, the rules used and the counts per verdict.
nlohmann::ordered_json comparison_to_json(const Comparison& comparison);

}  // namespace memtopo
