#include "report/console.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "report/console_bandwidth.hpp"
#include "report/console_banks.hpp"
#include "report/console_l2_capacity.hpp"
#include "report/console_partitions.hpp"
#include "report/console_tlbs.hpp"
#include "report/console_hopper.hpp"
#include "report/console_patterns.hpp"
#include "report/footnotes.hpp"
#include "report/modes_text.hpp"
#include "report/gpu_conditions_text.hpp"
#include "report/summary_tables.hpp"
#include "report/text_table.hpp"

namespace memtopo {
// Rows follow the thesis' results tables: SM-level caches from the L1 outwards, then the
// device-wide levels; ids not listed here keep the topology's order after these.
namespace {
constexpr const char* kRowOrder[] = {"l1",           "tex",    "ro",     "constant_l1",
                                     "constant_l15", "shared", "l2",     "dram",
                                     "constant",     "tlb_l1", "tlb_l2", "tlb_l3"};
}  // namespace

std::vector<const Element*> in_row_order(const std::vector<Element>& elements) {
  auto rank = [](const Element& e) {
    auto it = std::find(std::begin(kRowOrder), std::end(kRowOrder), e.id);
    return static_cast<std::size_t>(it - std::begin(kRowOrder));
  };
  std::vector<const Element*> ordered;
  for (const Element& e : elements) ordered.push_back(&e);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const Element* a, const Element* b) { return rank(*a) < rank(*b); });
  return ordered;
}

namespace {

using Align = TextTable::Align;
using Overflow = TextTable::Overflow;

// Every table and note fits a terminal this wide, except where one value alone is wider.
constexpr std::size_t kConsoleWidth = 120;

// Properties that have a column in the elements table (or a section of their own);
// everything else an element has goes to "Other findings" so nothing measured is hidden.
constexpr const char* kTableProperties[] = {
    "size",         "line",      "sector",   "latency", "miss_penalty",     "shared_with",
    "count_per_sm", "bandwidth", "carveout", "reach",   "conflict_latency", "latency_patterns",
    "partition_map"};

bool has_own_column(const std::string& property) {
  return is_bandwidth_property(property) ||
         std::find(std::begin(kTableProperties), std::end(kTableProperties), property) !=
             std::end(kTableProperties);
}

// Sections with a Source column say there whether a value came from the API and how sure it
// is; the elements table says it in the cell.
enum class Marks { in_cell, in_source_column };

std::string subject(const std::string& element_id, const Property& property) {
  return element_id + "." + property.name;
}

bool is_conclusive(const Property& property) {
  return !property.inconclusive && property.bound == Bound::none;
}

// A conclusive value whose confidence is low: "~ [n]", with the note saying why; "" otherwise.
// An inconclusive one has a note of its own (and, from older runs, perhaps a confidence).
std::string low_mark(const std::string& element_id, const Property& property, Footnotes& notes) {
  if (!is_conclusive(property)) return "";
  return low_confidence_mark(subject(element_id, property), property.confidence, property.evidence,
                             notes);
}

// An inconclusive value shows what is known ("? [1]", a bound as "> 62 KiB [1]", any other
// value as "48 KiB? [1]"); a low-confidence one is marked "~ [2]"; an API value says so,
// because it was not measured.
std::string decorate(std::string text, const std::string& element_id, const Property& property,
                     Footnotes& notes, Marks marks = Marks::in_cell) {
  const auto note = [&] {
    return notes.add(subject(element_id, property),
                     property.note.empty() ? "inconclusive" : property.note);
  };
  if (property.bound != Bound::none && !property.value.is_null()) {
    text = (property.bound == Bound::lower ? "≥ " : "≤ ") + text + " " + note();
  } else if (property.inconclusive) {
    text = (property.value.is_null() ? "?" : text + "?") + " " + note();
  }
  if (marks == Marks::in_source_column) return text;
  if (const std::string low = low_mark(element_id, property, notes); !low.empty()) {
    text += " " + low;
  }
  if (property.source == Source::api) text += " (api)";
  return text;
}

// The marks of a conclusive value's other modes whose confidence is low: " ~ [n]" each, with
// the note naming the mode (the headline mode's confidence is the property's own).
std::string low_mode_marks(const std::string& element_id, const Property& property,
                           Footnotes& notes) {
  if (!is_conclusive(property)) return "";
  std::string marks;
  for (std::size_t i = 1; i < property.modes.size(); ++i) {
    const Mode& mode = property.modes[i];
    const std::string mark = low_confidence_mark(
        subject(element_id, property) + " (" + mode.name + " mode)", mode.confidence,
        {{"confidence_factors", mode.confidence_factors}}, notes);
    if (!mark.empty()) marks += " " + mark;
  }
  return marks;
}

// A value of several modes shows each ("521 / 710 cy (44 % / 56 %)"), one of one mode itself.
std::string shown_value(const std::string& element_id, const Property& property,
                        Footnotes& notes, bool with_shares = true) {
  const std::string modes = with_shares ? modes_text(property) : modes_values_text(property);
  if (modes.empty()) return format_value(property.value, property.unit);
  return modes + low_mode_marks(element_id, property, notes);
}

std::string value_cell(const Element& element, const std::string& name, Footnotes& notes,
                       bool with_shares = true) {
  const Property* property = element.find(name);
  // A deprecated name (evidence.deprecated: l2.sector) stays in the JSON for scripts; the table
  // shows its replacement, under its own name, in Other findings.
  if (!property || property->evidence.contains("deprecated")) return "-";
  return decorate(shown_value(element.id, *property, notes, with_shares), element.id, *property,
                  notes);
}

// "33 cy ±1.2 (17.9 ns)": the overhead-corrected p50, its standard deviation, and the p50 in
// time converted with the clock measured during the run (omitted when that clock is unknown).
// A latency of two modes: "521 / 710 cy (44 % / 56 %)".
std::string latency_cell(const Element& element, Footnotes& notes) {
  const Property* latency = element.find("latency");
  if (!latency) return "-";
  if (!latency->modes.empty()) return value_cell(element, "latency", notes);
  // Three significant figures are plenty in this table (669.5 cy ±152 (338.5 ns) reads as
  // 670 cy ±152 (339 ns)), and keep its rows within the console's width.
  const auto three_figures = [](double value) {
    return format_number(value, std::fabs(value) >= 100 ? 0 : 1);
  };
  std::string text = latency->unit == "cycles" && latency->value.is_number()
                         ? three_figures(latency->value.get<double>()) + " cy"
                         : format_value(latency->value, latency->unit);
  if (latency->spread && latency->spread->samples > 1) {
    text += " ±" + three_figures(latency->spread->stdev);
  }
  if (latency->seconds_value) {
    const double ns = *latency->seconds_value * 1e9;
    text += " (" + (ns < 1000 ? three_figures(ns) + " ns" : format_seconds(*latency->seconds_value)) +
            ")";
  }
  return decorate(text, element.id, *latency, notes);
}

// "measured, confidence 0.95", with "~ [n]" where that confidence is low.
std::string source_cell(const std::string& element_id, const Property& property, Footnotes& notes) {
  std::string text = to_string(property.source);
  if (property.confidence) text += ", confidence " + format_confidence(*property.confidence);
  if (const std::string low = low_mark(element_id, property, notes); !low.empty()) {
    text += " " + low;
  }
  return text;
}

// A method's first clause (up to ": " or "; "), "…" where more follows: the table shows what
// was done, the JSON how.
std::string method_summary(const std::string& method) {
  std::size_t end = std::min(method.find(": "), method.find("; "));
  return end == std::string::npos ? method : method.substr(0, end) + "…";
}

void render_device_header(std::ostringstream& out, const Topology& topology) {
  const RunInfo& run = topology.run;
  const DeviceFacts& d = topology.device;
  out << "memtopo " << run.tool_version << " (" << run.git_describe << ")";
  if (!run.timestamp_utc.empty()) out << ", run " << run.timestamp_utc;
  if (!run.host.empty()) out << " on " << run.host;
  out << ", " << format_seconds(run.duration_seconds) << "\n";

  out << "Device " << d.device_index << ": " << d.name << " (" << d.backend;
  if (!d.pci_bus_id.empty()) out << ", PCI " << d.pci_bus_id;
  out << ")\n";

  out << "  compute capability " << d.cc_major << "." << d.cc_minor << ", " << d.sm_count
      << " SMs, warp size " << d.warp_size;
  if (d.max_threads_per_sm) out << ", " << d.max_threads_per_sm << " threads per SM";
  if (d.sm_clock_khz) out << ", SM clock " << format_clock_khz(static_cast<double>(d.sm_clock_khz));
  out << "\n";

  out << "  memory " << format_bytes(static_cast<double>(d.global_memory_bytes));
  if (d.memory_bus_width_bits) out << ", " << d.memory_bus_width_bits << "-bit bus";
  if (d.memory_clock_khz)
    out << " at " << format_clock_khz(static_cast<double>(d.memory_clock_khz));
  if (d.constant_bytes) out << ", constant " << format_bytes(static_cast<double>(d.constant_bytes));
  out << "\n";

  out << "  L2 " << format_bytes(static_cast<double>(d.l2_bytes)) << " (api), shared memory "
      << format_bytes(static_cast<double>(d.shared_per_sm_bytes)) << " per SM";
  if (d.shared_per_block_optin_bytes) {
    out << ", " << format_bytes(static_cast<double>(d.shared_per_block_optin_bytes))
        << " per block (opt-in)";
  }
  out << "\n";

  if (d.driver_version || d.runtime_version) {
    out << "  driver " << format_cuda_version(d.driver_version) << ", runtime "
        << format_cuda_version(d.runtime_version) << "\n";
  }
  if (d.nvml_sm_clock_mhz || d.nvml_max_sm_clock_mhz || d.nvml_memory_clock_mhz) {
    out << "  NVML:";
    if (d.nvml_sm_clock_mhz) out << " SM clock " << *d.nvml_sm_clock_mhz << " MHz now";
    if (d.nvml_max_sm_clock_mhz) out << ", max " << *d.nvml_max_sm_clock_mhz << " MHz";
    if (d.nvml_memory_clock_mhz) out << ", memory clock " << *d.nvml_memory_clock_mhz << " MHz";
    out << "\n";
  } else if (!d.nvml_status.empty()) {
    out << "  NVML: " << d.nvml_status << "\n";
  }
  out << gpu_sharing_header(topology);
}

// What the marks in the tables mean; the threshold is analysis/confidence.hpp's.
std::string legend() {
  return "~ [n] low confidence (below " + format_number(kLowConfidence, 2) +
         "), ? [n] inconclusive, ≥ x [n] or ≤ x [n] a bound, (api) reported by CUDA, - not known";
}

}  // namespace

std::string console_value_cell(const Element& element, const std::string& name,
                               Footnotes& notes) {
  return value_cell(element, name, notes);
}

std::optional<SummaryTable> elements_summary(const Topology& topology, Footnotes& notes) {
  if (topology.elements.empty()) return std::nullopt;
  TextTable table({{"Element"},
                   {"Size", Align::right},
                   {"Line", Align::right},
                   {"Sector", Align::right},
                   {"Latency", Align::right},
                   {"Miss penalty", Align::right},
                   {"Shared with"},
                   {"Per SM", Align::right}});
  for (const Element* row : in_row_order(topology.elements)) {
    const Element& e = *row;
    if (is_hopper_element(e.id)) continue;  // its own section
    // A TLB's size is its reach (entries x page).
    const char* size_name = !e.find("size") && e.find("reach") ? "reach" : "size";
    table.add_row({e.id, value_cell(e, size_name, notes), value_cell(e, "line", notes),
                   value_cell(e, "sector", notes), latency_cell(e, notes),
                   value_cell(e, "miss_penalty", notes, /*with_shares=*/false),
                   value_cell(e, "shared_with", notes), value_cell(e, "count_per_sm", notes)});
  }
  return SummaryTable{"elements",
                      "Memory elements (latency: p50 minus timing overhead ± standard deviation)",
                      std::move(table),
                      {legend()},
                      {}};
}

namespace {

void render_elements(std::ostringstream& out, const Topology& topology, Footnotes& notes) {
  if (const auto summary = elements_summary(topology, notes)) {
    out << render_summary_text(*summary, kConsoleWidth);
  } else {
    out << "\nMemory elements (latency: p50 minus timing overhead ± standard deviation)\n"
        << "  nothing measured\n";
  }
}

// One row of l1.carveout: its sizes, and its confidence marked (and explained by the row's own
// confidence_factors) where low.
std::vector<std::string> carveout_row(const nlohmann::json& row, Footnotes& notes) {
  const auto number = [&](const char* key) -> std::optional<double> {
    if (!row.is_object() || !row.contains(key) || !row[key].is_number()) return std::nullopt;
    return row[key].get<double>();
  };
  const auto reserved = number("reserved_shared_bytes");
  const auto size = number("l1_bytes");
  const auto confidence = number("confidence");
  std::string confidence_text = confidence ? format_confidence(*confidence) : "-";
  if (size) {
    const std::string low = low_confidence_mark(
        "l1.carveout at " + (reserved ? format_bytes(*reserved) : "?") + " reserved", confidence,
        row, notes);
    if (!low.empty()) confidence_text += " " + low;
  }
  return {reserved ? format_bytes(*reserved) : "?", size ? format_bytes(*size) : "?",
          reserved && size ? format_bytes(*reserved + *size) : "?", confidence_text};
}

// The L1 at each shared-memory reservation (l1.carveout: a list of rows), as its own table.
void render_carveout(std::ostringstream& out, const Topology& topology, Footnotes& notes) {
  const Element* l1 = topology.find("l1");
  const Property* carveout = l1 ? l1->find("carveout") : nullptr;
  if (!carveout || !carveout->value.is_array() || carveout->value.empty()) return;
  TextTable table({{"Shared reserved", Align::right},
                   {"L1 size", Align::right},
                   {"L1 + reserved", Align::right},
                   {"Confidence", Align::right}});
  for (const nlohmann::json& row : carveout->value) table.add_row(carveout_row(row, notes));
  out << "\nL1 at shared-memory reservations (l1.carveout)\n" << table.render(2, kConsoleWidth);
  out << wrap_paragraph(carveout->method, "  method: ", kConsoleWidth);
  if (!carveout->note.empty()) out << wrap_paragraph(carveout->note, "  note: ", kConsoleWidth);
}

void render_other_findings(std::ostringstream& out, const Topology& topology, Footnotes& notes) {
  // A long value (a bound with two modes and their shares, "≥ 549 / 761 cy (16 % / 84 %) [29]")
  // wraps once the method has narrowed to its least: the table keeps to the console's width.
  TextTable table({{"Property"},
                   {"Value", Align::left, Overflow::wrap},
                   {"Source"},
                   {"Method", Align::left, Overflow::shorten}});
  bool any = false;
  for (const Element* row : in_row_order(topology.elements)) {
    const Element& e = *row;
    if (is_hopper_element(e.id)) continue;  // its own section
    for (const Property& p : e.properties) {
      if (has_own_column(p.name) || in_tlb_table(e, p.name)) continue;
      any = true;
      std::string value =
          decorate(shown_value(e.id, p, notes), e.id, p, notes, Marks::in_source_column);
      table.add_row(
          {subject(e.id, p), value, source_cell(e.id, p, notes), method_summary(p.method)});
    }
  }
  if (any) {
    out << "\nOther findings (methods shortened: the JSON has them in full)\n"
        << table.render(2, kConsoleWidth);
  }
}

void render_probe_outcomes(std::ostringstream& out, const RunInfo& run) {
  std::size_t ok = 0;
  TextTable table({{"Probe"}, {"Status"}, {"Reason", Align::left, Overflow::wrap}});
  for (const ProbeOutcome& outcome : run.probes) {
    if (outcome.status == "ok") {
      ++ok;
      continue;
    }
    table.add_row({outcome.probe_id, outcome.status, outcome.reason});
  }
  out << "\nProbes: " << ok << " of " << run.probes.size() << " completed\n";
  if (ok != run.probes.size()) out << table.render(2, kConsoleWidth);
}

void render_phases(std::ostringstream& out, const RunInfo& run) {
  if (run.phases.empty()) return;
  TextTable table({{"Phase"}, {"Time", Align::right}, {"SM clock before -> after"}});
  double total = 0;
  for (const PhaseTiming& phase : run.phases) {
    total += phase.seconds;
    std::string clocks;
    if (phase.sm_clock_khz_before || phase.sm_clock_khz_after) {
      auto clock = [](const std::optional<double>& khz) {
        return khz ? format_clock_khz(*khz) : std::string("?");
      };
      clocks = clock(phase.sm_clock_khz_before) + " -> " + clock(phase.sm_clock_khz_after);
    }
    table.add_row({phase.name, format_seconds(phase.seconds), clocks});
  }
  table.add_row({"total", format_seconds(total)});
  out << "\nPhases\n" << table.render(2, kConsoleWidth) << conditions_summary(run);
}

void render_warnings(std::ostringstream& out, const Topology& topology) {
  if (topology.warnings.empty()) return;
  out << "\nWarnings\n";
  for (const std::string& warning : topology.warnings) {
    out << wrap_paragraph(warning, "  - ", kConsoleWidth);
  }
}

}  // namespace

std::string simulated_banner(const std::string& sim_file) {
  return "SIMULATED DEVICE (" + sim_file + "): not a measurement of real hardware";
}

std::string render_console(const Topology& topology) {
  std::ostringstream out;
  const RunInfo& run = topology.run;
  if (run.simulated) out << simulated_banner(run.sim_file) << "\n\n";
  if (run.interrupted) {
    out << "INTERRUPTED: the run was stopped early; the results below are partial\n\n";
  }
  out << shared_gpu_banner(run);
  render_device_header(out, topology);

  Footnotes notes;
  render_elements(out, topology, notes);
  out << render_bandwidth_section(topology, notes, kConsoleWidth);
  render_carveout(out, topology, notes);
  render_l2_capacity(out, topology, kConsoleWidth);
  if (const auto tlbs = tlb_summary(topology, notes)) out << render_summary_text(*tlbs, kConsoleWidth);
  render_partition_map(out, topology, notes, kConsoleWidth);
  render_shared_banks(out, topology, notes, kConsoleWidth);
  out << render_latency_patterns_section(topology, notes, kConsoleWidth);
  render_hopper_section(out, topology, notes, kConsoleWidth);
  render_other_findings(out, topology, notes);
  if (!notes.empty()) out << "\nNotes\n" << notes.render(kConsoleWidth);

  render_probe_outcomes(out, run);
  render_phases(out, run);
  render_warnings(out, topology);
  return out.str();
}

}  // namespace memtopo
