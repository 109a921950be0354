#include "report/console_bandwidth.hpp"

#include <algorithm>
#include <iterator>
#include <optional>

#include "analysis/confidence.hpp"
#include "model/unit_factors.hpp"
#include "model/units.hpp"
#include "report/summary_tables.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using Align = TextTable::Align;

constexpr const char* kRateProperties[] = {"bandwidth", "write_bandwidth", "copy_bandwidth",
                                           "triad_bandwidth", "triad3_bandwidth"};
constexpr const char* kBandwidthProperties[] = {
    "bandwidth",        "write_bandwidth",        "copy_bandwidth", "triad_bandwidth",
    "triad3_bandwidth", "bandwidth_per_sm_clock", "peak_bandwidth", "peak_fraction"};
// Levels from the SM outwards, as in the elements table.
constexpr const char* kLevelOrder[] = {"l1", "tex", "ro", "shared", "l2", "dram"};

// A property's value as the table shows it: "-" when absent, "?" (with why) when inconclusive.
std::string cell(const Element& element, const char* name, Footnotes& notes) {
  const Property* p = element.find(name);
  if (!p) return "-";
  const auto note = [&] {
    return notes.add(element.id + "." + p->name, p->note.empty() ? "inconclusive" : p->note);
  };
  // A rate that is only a bound (an L2 figure that may be DRAM's): "≥ 4.8 TB/s [n]".
  if (p->inconclusive && p->bound != Bound::none && p->value.is_number()) {
    return (p->bound == Bound::lower ? "≥ " : "≤ ") + format_rate(p->value.get<double>()) + " " +
           note();
  }
  if (p->inconclusive || !p->value.is_number()) return "? " + note();
  const double value = p->value.get<double>();
  if (p->unit == "bytes/second") {
    // The spread as the standard deviation relative to the value: "1.6 TB/s ±0.2 %".
    const bool spread = p->spread && p->spread->samples > 1 && value > 0;
    return format_rate(value) +
           (spread ? " ±" + format_number(p->spread->stdev / value * kPercent, 1) + " %" : "");
  }
  if (p->name == "peak_fraction") return format_number(value * kPercent, 1) + " %";
  return format_number(value, 1);
}

// The weakest confidence among the level's rates: the row is as sure as its least sure figure;
// a low one is marked `~`, as everywhere in the console.
std::string confidence_cell(const Element& element, Footnotes& notes) {
  const Property* weakest = nullptr;
  for (const char* name : kRateProperties) {
    const Property* p = element.find(name);
    if (p && p->confidence && (!weakest || *p->confidence < *weakest->confidence)) weakest = p;
  }
  if (!weakest) return "-";
  const std::string mark = low_confidence_mark(element.id + "." + weakest->name,
                                               weakest->confidence, weakest->evidence, notes);
  return format_confidence(*weakest->confidence) + (mark.empty() ? "" : " " + mark);
}

// "4x256, 16 B x2": blocks per SM x threads, vector bytes x unroll of the read's best launch;
// "1 pass x256, ..." for a one-pass grid, whose blocks per SM are whatever fits.
std::string launch_cell(const Property& read) {
  const nlohmann::json& launch = read.evidence.value("launch", nlohmann::json::object());
  const auto number = [&](const char* key) {
    return launch.contains(key) ? launch[key].dump() : std::string("?");
  };
  if (launch.empty()) return "-";
  const bool one_pass = read.evidence.value("placement", std::string()) == "one_pass";
  return (one_pass ? std::string("1 pass") : number("blocks_per_sm")) + "x" +
         number("threads_per_block") + ", " + number("vector_bytes") + " B x" + number("unroll");
}

int rank(const Element& e) {
  const auto it = std::find(std::begin(kLevelOrder), std::end(kLevelOrder), e.id);
  return static_cast<int>(std::distance(std::begin(kLevelOrder), it));
}

// The level's triads, where measured: "dram triads: 2:1 4.44 TB/s ±0.1 % (...), 3:1 ...", or "".
std::string triads_line(const Element& element, Footnotes& notes) {
  struct Mix {
    const char* name;
    const char* label;
    const char* what;
  };
  constexpr Mix kMixes[] = {
      {"triad_bandwidth", "2:1 ", " (a = b + s x c, all three arrays' bytes, as STREAM)"},
      {"triad3_bandwidth", "3:1 ",
       " (a = b x d + c, all four arrays' bytes, gpu-stream's triad kernel)"}};
  std::string line;
  for (const Mix& mix : kMixes) {
    if (!element.find(mix.name)) continue;
    line += (line.empty() ? element.id + " triads (reads : writes): " : ", ") + mix.label +
            cell(element, mix.name, notes) + mix.what;
  }
  return line;
}

}  // namespace

bool is_bandwidth_property(const std::string& name) {
  return std::find(std::begin(kBandwidthProperties), std::end(kBandwidthProperties), name) !=
         std::end(kBandwidthProperties);
}

std::optional<SummaryTable> bandwidth_summary(const Topology& topology, Footnotes& notes) {
  std::vector<const Element*> levels;
  for (const Element& e : topology.elements) {
    if (e.find("bandwidth")) levels.push_back(&e);
  }
  if (levels.empty()) return std::nullopt;
  std::stable_sort(levels.begin(), levels.end(),
                   [](const Element* a, const Element* b) { return rank(*a) < rank(*b); });
  std::vector<TextTable::Column> columns{
      {"Level"}, {"Read", Align::right}, {"Write", Align::right}, {"Copy", Align::right}};
  for (const char* title : {"B/clk/SM", "% of peak", "Confidence"}) {
    columns.push_back({title, Align::right});
  }
  columns.push_back({"Read launch"});
  TextTable table(std::move(columns));
  std::vector<std::string> after{
      "read launch: blocks per SM (or 1 pass: one tile per warp, blocks in waves) x threads per "
      "block, vector bytes x unroll"};
  for (const Element* level : levels) {
    const Element& e = *level;
    std::vector<std::string> row{e.id, cell(e, "bandwidth", notes),
                                 cell(e, "write_bandwidth", notes),
                                 cell(e, "copy_bandwidth", notes)};
    for (const std::string& more :
         {cell(e, "bandwidth_per_sm_clock", notes), cell(e, "peak_fraction", notes),
          confidence_cell(e, notes), launch_cell(*e.find("bandwidth"))}) {
      row.push_back(more);
    }
    table.add_row(std::move(row));
    // The mixed directions on a line of their own, not columns: the table stays within 120
    // columns (two triad columns made it 149).
    if (const std::string mixes = triads_line(e, notes); !mixes.empty()) after.push_back(mixes);
    if (const Property* peak = e.find("peak_bandwidth"); peak && peak->value.is_number()) {
      after.push_back(e.id + " peak: " + format_rate(peak->value.get<double>()) + " (" +
                      to_string(peak->source) + ", " + peak->method + ")");
    }
  }
  return SummaryTable{
      "bandwidth",
      "Bandwidth (p50 of timed launches; B/clk/SM at the SM clock measured during them)",
      std::move(table),
      {},
      std::move(after)};
}

std::string render_bandwidth_section(const Topology& topology, Footnotes& notes,
                                     std::size_t max_width) {
  const auto summary = bandwidth_summary(topology, notes);
  return summary ? render_summary_text(*summary, max_width) : "";
}

}  // namespace memtopo
