#pragma once
// What `memtopo fleet` prints: the outliers first, then each model's summary (console), the
// machine form (--json FILE, schema "memtopo-fleet/1", docs/fleet.md lists its keys), and an HTML
// page with one strip plot per property (--html FILE, fleet_html.cpp).
#include <string>

#include <nlohmann/json.hpp>

#include "report/fleet.hpp"

namespace memtopo {

inline constexpr const char* kFleetSchema = "memtopo-fleet/1";

// The outliers (GPU, property, value, fleet median, robust z, why), each model's summary (GPUs,
// properties judged, outliers, or "too small to judge"), incomplete runs, a one-line verdict.
std::string render_fleet_text(const Fleet& fleet);

// The rules, every GPU, and per model every property's median, robust sigma, tolerance and
// values (outliers marked).
nlohmann::ordered_json fleet_to_json(const Fleet& fleet);

// One self-contained page: the outliers table, then per model one strip plot per property
// (each GPU a dot with its own p5..p95, the median and the fleet's tolerance as lines, outliers
// in a series of their own and named under the plot).
// `run` is the fleet command's own (the tool version in the footer).
std::string render_fleet_html(const Fleet& fleet, const RunInfo& run);

}  // namespace memtopo
