#pragma once
// What the HTML and markdown reports show in their tables, computed once for both: every
// finding as a row (value, spread, confidence and its mark, source, method, note, evidence) and
// the device and run facts of the header.
#include <string>
#include <utility>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

// How sure a value is, as the reports mark it.
enum class ValueMark {
  none,          // a conclusive value at or above the confidence threshold
  low,           // conclusive but below kLowConfidence: "~"
  inconclusive,  // no conclusion (perhaps a best estimate): "?"
  bound,         // only a bound: "> x" or "< x"
  api,           // reported by CUDA, not measured
};

// The symbol a report puts beside a marked value: "~" low, "?" inconclusive or a bound; "" for
// none and api (an API value says "api" in its source).
const char* mark_symbol(ValueMark mark);
// The CSS class (HTML) and the legend word of the mark: "low", "inconclusive", ... ("" for none).
const char* mark_name(ValueMark mark);

struct FindingRow {
  std::string subject;     // "l1.size"
  std::string value;       // "32 KiB", "> 16 KiB", "48 KiB?", "?"
  std::string spread;      // "p5 31 cy, p95 35 cy, 4096 samples", or ""
  std::string confidence;  // "0.95", or "-" (none: an API value, an inconclusive one)
  ValueMark mark = ValueMark::none;
  std::string source;          // "measured", "derived", "api"
  std::string method;          // in full
  std::string method_summary;  // its first clause (up to ": " or "; "), "…" where more follows
  std::string note;  // the property's note; for a low confidence, its factors weakest first
  const nlohmann::json* evidence = nullptr;  // the property's evidence (in the topology)
};

// Every property of every element, elements in the console's row order.
std::vector<FindingRow> finding_rows(const Topology& topology);

// The header's facts, as label and text: device, clocks, memory, driver, run, arguments.
std::vector<std::pair<std::string, std::string>> header_facts(const Topology& topology);

// Banners that must open the report (simulated device, interrupted run, shared GPU), in order.
std::vector<std::string> report_banners(const Topology& topology);

}  // namespace memtopo
