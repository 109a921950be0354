#include "report/report_rows.hpp"

#include <algorithm>
#include <cmath>

#include "model/units.hpp"
#include "report/console.hpp"
#include "report/footnotes.hpp"
#include "report/gpu_conditions_text.hpp"
#include "report/modes_text.hpp"

namespace memtopo {
namespace {

// A spread whose p50 is within this share of the value is the value's own spread.
constexpr double kSameValue = 0.01;

ValueMark mark_of(const Property& p) {
  if (p.bound != Bound::none && !p.value.is_null()) return ValueMark::bound;
  if (p.inconclusive) return ValueMark::inconclusive;
  if (is_low_confidence(p.confidence)) return ValueMark::low;
  if (p.source == Source::api) return ValueMark::api;
  return ValueMark::none;
}

// A list of records (l1.carveout's rows) is a table of its own, in the plots and the console.
bool is_list_of_records(const nlohmann::json& value) {
  return value.is_array() && !value.empty() && value.front().is_object();
}

std::string value_text(const Property& p, ValueMark mark) {
  if (p.name == "partition_map" && p.value.is_array()) {
    return std::to_string(p.value.size()) + " partitions (see the plots and the console report)";
  }
  if (is_list_of_records(p.value)) {
    return std::to_string(p.value.size()) + " rows (see the plots and the console report)";
  }
  const std::string modes = modes_text(p);  // "521 / 710 cy (44 % / 56 %)"
  const std::string text = modes.empty() ? format_value(p.value, p.unit) : modes;
  if (mark == ValueMark::bound) return (p.bound == Bound::lower ? "≥ " : "≤ ") + text;
  if (mark == ValueMark::inconclusive) return p.value.is_null() ? "no value" : text + "?";
  return text;
}

// The spread in the value's unit when it is the spread of the value (a latency, a bandwidth):
// "p5 31 cy, p95 35 cy, stdev 1.2 cy, 4096 samples". Some findings keep the spread of the
// samples behind them instead (a size: the hit latencies); those read as plain numbers.
std::string spread_text(const Property& p) {
  if (!p.spread || p.spread->samples == 0) return "";
  const Spread& s = *p.spread;
  const bool of_the_value =
      p.value.is_number() &&
      std::fabs(s.p50 - p.value.get<double>()) <= kSameValue * std::fabs(p.value.get<double>());
  const auto shown = [&](double value) {
    return of_the_value ? format_value(value, p.unit) : format_number(value, 2);
  };
  std::string text = of_the_value ? "" : "samples behind it: ";
  text += "p5 " + shown(s.p5) + ", p95 " + shown(s.p95);
  if (s.samples > 1) text += ", stdev " + shown(s.stdev);
  text += ", " + std::to_string(s.samples) + " samples";
  if (p.seconds_value) text += "; p50 " + format_seconds(*p.seconds_value);
  if (const std::string modes = modes_detail(p); !modes.empty()) {
    text = (p.modes.front().name) + " mode " + text + "; modes: " + modes;
  }
  return text;
}

std::string note_text(const Property& p, ValueMark mark) {
  std::string note = p.note;
  if (mark == ValueMark::low) {
    if (!note.empty()) note += "; ";
    note += "low confidence: " + explain_confidence_factors(p.evidence);
  }
  return note;
}

std::string summary_of(const std::string& method) {
  const std::size_t end = std::min(method.find(": "), method.find("; "));
  return end == std::string::npos ? method : method.substr(0, end) + "…";
}

// Lines of a console helper ("  text\n" each) joined into one sentence-like string.
std::string joined_lines(const std::string& lines) {
  std::string out;
  std::size_t start = 0;
  while (start < lines.size()) {
    std::size_t end = lines.find('\n', start);
    if (end == std::string::npos) end = lines.size();
    std::string line = lines.substr(start, end - start);
    line.erase(0, line.find_first_not_of(' '));
    if (!line.empty()) out += (out.empty() ? "" : "; ") + line;
    start = end + 1;
  }
  return out;
}

}  // namespace

const char* mark_symbol(ValueMark mark) {
  switch (mark) {
    case ValueMark::low:
      return "~";
    case ValueMark::inconclusive:
      return "?";
    case ValueMark::bound:
      return "?";  // a bound is inconclusive too; its value says "> x"
    case ValueMark::api:
    case ValueMark::none:
      break;
  }
  return "";
}

const char* mark_name(ValueMark mark) {
  switch (mark) {
    case ValueMark::low:
      return "low";
    case ValueMark::inconclusive:
      return "inconclusive";
    case ValueMark::bound:
      return "bound";
    case ValueMark::api:
      return "api";
    case ValueMark::none:
      break;
  }
  return "";
}

std::vector<FindingRow> finding_rows(const Topology& topology) {
  std::vector<FindingRow> rows;
  for (const Element* element : in_row_order(topology.elements)) {
    for (const Property& p : element->properties) {
      FindingRow row;
      row.subject = element->id + "." + p.name;
      row.mark = mark_of(p);
      row.value = value_text(p, row.mark);
      row.spread = spread_text(p);
      row.confidence = p.confidence ? format_confidence(*p.confidence) : "-";
      row.source = to_string(p.source);
      row.method = p.method;
      row.method_summary = summary_of(p.method);
      row.note = note_text(p, row.mark);
      row.evidence = &p.evidence;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::vector<std::pair<std::string, std::string>> header_facts(const Topology& topology) {
  const DeviceFacts& d = topology.device;
  const RunInfo& run = topology.run;
  const auto bytes = [](auto value) { return format_bytes(static_cast<double>(value)); };
  std::vector<std::pair<std::string, std::string>> facts;
  facts.emplace_back("Device", std::to_string(d.device_index) + ": " + d.name + " (" + d.backend +
                                   (d.pci_bus_id.empty() ? "" : ", PCI " + d.pci_bus_id) + ")");
  std::string compute = "compute capability " + std::to_string(d.cc_major) + "." +
                        std::to_string(d.cc_minor) + ", " + std::to_string(d.sm_count) +
                        " SMs, warp size " + std::to_string(d.warp_size);
  if (d.sm_clock_khz)
    compute += ", SM clock " + format_clock_khz(static_cast<double>(d.sm_clock_khz));
  facts.emplace_back("Compute", compute);
  std::string memory = bytes(d.global_memory_bytes);
  if (d.memory_bus_width_bits)
    memory += ", " + std::to_string(d.memory_bus_width_bits) + "-bit bus";
  if (d.memory_clock_khz)
    memory += " at " + format_clock_khz(static_cast<double>(d.memory_clock_khz));
  memory += "; L2 " + bytes(d.l2_bytes) + " (api); shared memory " + bytes(d.shared_per_sm_bytes) +
            " per SM";
  facts.emplace_back("Memory", memory);
  if (d.driver_version || d.runtime_version) {
    facts.emplace_back("CUDA", "driver " + format_cuda_version(d.driver_version) + ", runtime " +
                                   format_cuda_version(d.runtime_version));
  }
  if (const std::string sharing = joined_lines(gpu_sharing_header(topology)); !sharing.empty()) {
    facts.emplace_back("GPU", sharing);
  }
  facts.emplace_back("memtopo", run.tool_version + " (" + run.git_describe + ")");
  std::string when = run.timestamp_utc.empty() ? "-" : run.timestamp_utc;
  if (!run.host.empty()) when += " on " + run.host;
  facts.emplace_back("Run", when + ", " + format_seconds(run.duration_seconds));
  std::string arguments;
  for (const std::string& argument : run.arguments)
    arguments += (arguments.empty() ? "" : " ") + argument;
  if (!arguments.empty()) facts.emplace_back("Arguments", arguments);
  return facts;
}

std::vector<std::string> report_banners(const Topology& topology) {
  std::vector<std::string> banners;
  if (topology.run.simulated) banners.push_back(simulated_banner(topology.run.sim_file));
  if (topology.run.interrupted) {
    banners.push_back("INTERRUPTED: the run was stopped early; the results below are partial");
  }
  if (!topology.run.complete) {
    banners.push_back("INCOMPLETE: a checkpoint of a run that did not finish");
  }
  if (const std::string shared = joined_lines(shared_gpu_banner(topology.run)); !shared.empty()) {
    banners.push_back(shared);
  }
  return banners;
}

}  // namespace memtopo
