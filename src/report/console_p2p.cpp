#include "report/console_p2p.hpp"

#include <utility>
#include <vector>

#include "model/units.hpp"
#include "report/footnotes.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using Align = TextTable::Align;

constexpr std::size_t kMaxWidth = 120;
constexpr int kIndent = 2;
constexpr const char* kDiagonal = "-";

// Values only in the cells, the unit in the title (as nvbandwidth prints its matrices): eight
// GPUs and the host then fit 120 columns.
const std::vector<P2pMatrixView> kMatrices = {
    {p2p_property::kPeerAccess, "Peer access (SMs can load and store the memory)"},
    {p2p_property::kLink,
     "Link (NVn: n NVLinks, \"sw\" through NVSwitches; PCIe<generation> x<width>)"},
    {p2p_property::kLatency,
     "Latency of a dependent load, ns (p50; near / far SMs): across pages, beyond both L2s"},
    {p2p_property::kLatencyOnePage,
     "Latency of a dependent load, ns (p50; near / far SMs): inside one 2 MiB page, in its L2"},
    {p2p_property::kSmRead, "SM read bandwidth, GB/s: the GPU's SMs load the memory (p50)"},
    {p2p_property::kSmWrite, "SM write bandwidth, GB/s: the GPU's SMs store to the memory (p50)"},
    {p2p_property::kCopyRead, "Copy-engine read bandwidth, GB/s: memory -> GPU (p50)"},
    {p2p_property::kCopyWrite, "Copy-engine write bandwidth, GB/s: GPU -> memory (p50)"},
};
constexpr double kNsPerSecond = 1e9;
constexpr double kBytesPerGigabyte = 1e9;

// "NV18", "NV18 sw", "PCIe5 x16", "PCIe", "none": the link's kind and size from its evidence
// (the JSON keeps the whole text and the PCIe path).
std::string link_cell(const Property& property) {
  const nlohmann::json& evidence = property.evidence;
  const std::string kind = evidence.value("kind", "unknown");
  if (kind == "nvlink") {
    return "NV" + std::to_string(evidence.value("nvlink_count", 0)) +
           (evidence.value("through_switch", false) ? " sw" : "");
  }
  if (kind == "pcie") {
    const int generation = evidence.value("pcie_generation", 0);
    const int width = evidence.value("pcie_width", 0);
    return "PCIe" + (generation > 0 ? std::to_string(generation) : std::string()) +
           (width > 0 ? " x" + std::to_string(width) : std::string());
  }
  return kind;
}

std::string subject(const P2pReport& report, const P2pPair& pair, const std::string& property) {
  const std::string memory =
      pair.memory == kHostColumn ? "host" : p2p_gpu_label(report.devices.at(pair.memory));
  return p2p_gpu_label(report.devices.at(pair.actor)) + " -> " + memory + " " + property;
}

}  // namespace

std::string p2p_gpu_label(const P2pDevice& device) {
  return "GPU " + std::to_string(device.cuda_index);
}

const std::vector<P2pMatrixView>& p2p_matrix_views() {
  return kMatrices;
}

bool p2p_has_property(const P2pReport& report, const char* name) {
  for (const P2pPair& pair : report.pairs) {
    if (pair.find(name)) return true;
  }
  return false;
}

std::string p2p_value_text(const Property& property) {
  if (property.name == p2p_property::kPeerAccess) {
    return property.value.is_boolean() && property.value.get<bool>() ? "yes" : "no";
  }
  if (property.name == p2p_property::kLink) return link_cell(property);
  if (p2p_property::is_latency(property.name)) {
    const double ns = *property.seconds_value * kNsPerSecond;
    // Two modes (near and far SMs): "near / far", each mode's cycles at the headline's clock.
    if (property.modes.size() >= 2 && property.value.is_number() &&
        property.value.get<double>() > 0) {
      const double ns_per_cycle = ns / property.value.get<double>();
      std::string text;
      for (const Mode& mode : property.modes) {
        text += (text.empty() ? "" : " / ") + format_number(mode.value * ns_per_cycle, 1);
      }
      return text;
    }
    return format_number(ns, 1);
  }
  return format_number(property.value.get<double>() / kBytesPerGigabyte, 1);
}

namespace {

// Footnotes shared by every cell with the same reason (no peer access, a staged copy), so that
// an 8-GPU matrix does not list one note per cell.
class SharedNotes {
 public:
  explicit SharedNotes(Footnotes& notes) : notes_(notes) {}
  std::string mark(const std::string& subject, const std::string& text) {
    for (const auto& [known, mark] : marks_) {
      if (known == text) return mark;
    }
    return marks_.emplace_back(text, notes_.add(subject, text)).second;
  }
  Footnotes& notes() { return notes_; }

 private:
  Footnotes& notes_;
  std::vector<std::pair<std::string, std::string>> marks_;
};

std::string cell(const P2pReport& report, const P2pPair* pair, const char* name,
                 SharedNotes& shared) {
  const Property* property = pair ? pair->find(name) : nullptr;
  if (!property) return "";
  Footnotes& notes = shared.notes();
  const std::string about = subject(report, *pair, name);
  if (property->inconclusive || property->value.is_null() ||
      (p2p_property::is_latency(property->name) && !property->seconds_value)) {
    return "n/a " +
           shared.mark("pairs marked so", property->note.empty() ? "inconclusive" : property->note);
  }
  std::string text = p2p_value_text(*property);
  const std::string mark =
      low_confidence_mark(about, property->confidence, property->evidence, notes);
  if (!mark.empty()) text += " " + mark;
  // A staged copy is slower for a reason the reader must know.
  if (!property->note.empty() && property->name != p2p_property::kLink) {
    text += " " + shared.mark("values marked so", property->note);
  }
  return text;
}

std::string matrix(const P2pReport& report, const P2pMatrixView& view, SharedNotes& notes) {
  std::vector<TextTable::Column> columns{{"acts on", Align::left}};
  for (const P2pDevice& device : report.devices)
    columns.push_back({p2p_gpu_label(device), Align::right});
  columns.push_back({"host", Align::right});
  TextTable table(columns);
  for (const P2pDevice& actor : report.devices) {
    std::vector<std::string> row{p2p_gpu_label(actor)};
    for (const P2pDevice& memory : report.devices) {
      row.push_back(
          memory.position == actor.position
              ? kDiagonal
              : cell(report, report.find(actor.position, memory.position), view.property, notes));
    }
    row.push_back(cell(report, report.find(actor.position, kHostColumn), view.property, notes));
    table.add_row(std::move(row));
  }
  return std::string(kIndent, ' ') + view.title + "\n" + table.render(kIndent, kMaxWidth);
}

std::string outcomes(const P2pReport& report) {
  TextTable table({{"p2p probe"},
                   {"status"},
                   {"seconds", Align::right},
                   {"reason", Align::left, TextTable::Overflow::wrap}});
  for (const ProbeOutcome& outcome : report.probes) {
    std::string seconds;
    for (const PhaseTiming& phase : report.phases) {
      if (phase.name == outcome.probe_id) seconds = format_number(phase.seconds, 3);
    }
    table.add_row({outcome.probe_id, outcome.status, seconds, outcome.reason});
  }
  return table.render(kIndent, kMaxWidth);
}

}  // namespace

std::string render_p2p_console(const P2pReport& report) {
  std::string out = "Multi-GPU (p2p): " + std::to_string(report.devices.size()) +
                    " GPUs; rows: the GPU that acts (its SMs or copy engines), columns: the\n"
                    "memory it reads or writes (another GPU's, or the host's pinned memory).\n\n";
  Footnotes notes;
  SharedNotes shared(notes);
  for (const P2pMatrixView& view : kMatrices) {
    if (p2p_has_property(report, view.property)) out += matrix(report, view, shared) + "\n";
  }
  if (!notes.empty()) out += "  Notes\n" + notes.render(kMaxWidth) + "\n";
  out += outcomes(report);
  out += "  p2p family: " + format_number(report.duration_seconds, 2) + " s\n";
  for (const std::string& warning : report.warnings) {
    out += wrap_paragraph(warning, "  warning: ", kMaxWidth);
  }
  return out;
}

}  // namespace memtopo
