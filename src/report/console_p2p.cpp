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

struct MatrixView {
  const char* property;
  const char* title;
};

constexpr MatrixView kMatrices[] = {
    {p2p_property::kPeerAccess, "Peer access (SMs can load and store the memory)"},
    {p2p_property::kLink, "Link"},
    {p2p_property::kLatency, "Latency of a dependent load (p50)"},
    {p2p_property::kSmRead, "SM read bandwidth: the GPU's SMs load the memory (p50)"},
    {p2p_property::kSmWrite, "SM write bandwidth: the GPU's SMs store to the memory (p50)"},
    {p2p_property::kCopyRead, "Copy-engine read bandwidth: memory -> GPU (p50)"},
    {p2p_property::kCopyWrite, "Copy-engine write bandwidth: GPU -> memory (p50)"},
};

std::string gpu_label(const P2pDevice& device) {
  return "GPU " + std::to_string(device.cuda_index);
}

std::string subject(const P2pReport& report, const P2pPair& pair, const std::string& property) {
  const std::string memory =
      pair.memory == kHostColumn ? "host" : gpu_label(report.devices.at(pair.memory));
  return gpu_label(report.devices.at(pair.actor)) + " -> " + memory + " " + property;
}

std::string value_text(const Property& property) {
  if (property.name == p2p_property::kPeerAccess) {
    return property.value.is_boolean() && property.value.get<bool>() ? "yes" : "no";
  }
  if (property.name == p2p_property::kLink) {
    return property.value.is_string() ? property.value.get<std::string>() : "?";
  }
  if (property.name == p2p_property::kLatency) return format_seconds(*property.seconds_value);
  return format_rate(property.value.get<double>());
}

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
      (property->name == p2p_property::kLatency && !property->seconds_value)) {
    return "n/a " + shared.mark("pairs marked so",
                                property->note.empty() ? "inconclusive" : property->note);
  }
  std::string text = value_text(*property);
  const std::string mark =
      low_confidence_mark(about, property->confidence, property->evidence, notes);
  if (!mark.empty()) text += " " + mark;
  // A staged copy is slower for a reason the reader must know.
  if (!property->note.empty() && property->name != p2p_property::kLink) {
    text += " " + shared.mark("values marked so", property->note);
  }
  return text;
}

bool any_property(const P2pReport& report, const char* name) {
  for (const P2pPair& pair : report.pairs) {
    if (pair.find(name)) return true;
  }
  return false;
}

std::string matrix(const P2pReport& report, const MatrixView& view, SharedNotes& notes) {
  std::vector<TextTable::Column> columns{{"GPU \\ memory", Align::left}};
  for (const P2pDevice& device : report.devices)
    columns.push_back({gpu_label(device), Align::right});
  columns.push_back({"host", Align::right});
  TextTable table(columns);
  for (const P2pDevice& actor : report.devices) {
    std::vector<std::string> row{gpu_label(actor)};
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
  for (const MatrixView& view : kMatrices) {
    if (any_property(report, view.property)) out += matrix(report, view, shared) + "\n";
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
