// The console text of a study run; see report.hpp.
#include <cmath>
#include <sstream>

#include "analysis/confidence.hpp"
#include "model/unit_factors.hpp"
#include "model/units.hpp"
#include "report/console.hpp"
#include "report/text_table.hpp"
#include "study/report.hpp"

namespace memtopo::study {
namespace {

constexpr std::size_t kConsoleWidth = 120;

// "1.23 TB/s ±2%" for a measured value; "~" before one below kLowConfidence; "-" for null
// (its note follows the table).
std::string cell_text(const Cell& cell, const Column& column) {
  if (cell.value.is_null()) return "-";
  std::string text = format_value(cell.value, column.unit);
  if (cell.spread && cell.value.is_number() && cell.spread->samples > 1) {
    const double p50 = cell.value.get<double>();
    if (p50 != 0) {
      text += " ±" + format_number(kPercent * cell.spread->stdev / std::fabs(p50), 0) + "%";
    }
  }
  if (cell.confidence && *cell.confidence < kLowConfidence) text = "~" + text;
  return text;
}

std::string column_title(const Column& column) {
  return column.role == ColumnRole::predicted ? column.name + " (pred.)" : column.name;
}

void render_table(std::ostringstream& out, const Table& table) {
  std::vector<TextTable::Column> columns;
  for (const Column& column : table.columns) {
    columns.push_back({column_title(column), column.role == ColumnRole::parameter
                                                 ? TextTable::Align::left
                                                 : TextTable::Align::right});
  }
  TextTable text(columns);
  std::vector<std::string> notes;
  for (const std::vector<Cell>& row : table.rows) {
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i) {
      cells.push_back(cell_text(row[i], table.columns[i]));
      const std::string note = table.columns[i].name + ": " + row[i].note;
      if (row[i].value.is_null() && !row[i].note.empty() &&
          std::find(notes.begin(), notes.end(), note) == notes.end()) {
        notes.push_back(note);
      }
    }
    text.add_row(std::move(cells));
  }
  out << "\n" << table.title << "\n" << text.render(2, kConsoleWidth);
  for (const std::string& note : notes) out << wrap_paragraph(note, "  - means ", kConsoleWidth);
}

void render_header(std::ostringstream& out, const StudyReport& report) {
  const RunInfo& run = report.header.run;
  const DeviceFacts& device = report.header.device;
  if (run.simulated) out << simulated_banner(run.sim_file) << "\n\n";
  if (run.interrupted) {
    out << "INTERRUPTED: the run was stopped early; the results below are partial\n\n";
  }
  out << "memtopo study " << report.result.id << ": " << report.result.title << "\n";
  out << "memtopo " << run.tool_version << " (" << run.git_describe << ")";
  if (!run.timestamp_utc.empty()) out << ", run " << run.timestamp_utc;
  if (!run.host.empty()) out << " on " << run.host;
  out << ", " << format_seconds(run.duration_seconds) << "\n";
  out << "Device " << device.device_index << ": " << device.name << " (" << device.backend << "), "
      << device.sm_count << " SMs";
  if (device.sm_clock_khz) {
    out << ", SM clock " << format_clock_khz(static_cast<double>(device.sm_clock_khz));
  }
  out << "\n";
  out << "Status: " << report.result.status;
  if (!report.result.reason.empty()) out << " (" << report.result.reason << ")";
  out << "\n";
}

void render_findings(std::ostringstream& out, const StudyResult& result) {
  if (result.findings.empty()) return;
  out << "\nFindings (~: confidence below " << format_number(kLowConfidence, 1) << ")\n";
  for (const Finding& finding : result.findings) {
    std::string text = finding.what;
    if (!finding.why.empty()) text += ": " + finding.why;
    if (!finding.tied_to.empty()) text += " [" + finding.tied_to + "]";
    const bool low = finding.confidence && *finding.confidence < kLowConfidence;
    if (finding.confidence) {
      text += std::string(low ? " (low confidence " : " (confidence ") +
              format_number(*finding.confidence, 2) + ")";
    }
    out << wrap_paragraph(text, low ? "  ~ " : "  - ", kConsoleWidth);
  }
}

void render_tail(std::ostringstream& out, const StudyReport& report) {
  if (!report.result.notes.empty()) {
    out << "\nNotes\n";
    for (const std::string& note : report.result.notes) {
      out << wrap_paragraph(note, "  - ", kConsoleWidth);
    }
  }
  if (!report.header.run.phases.empty()) {
    out << "\nPhases\n";
    for (const PhaseTiming& phase : report.header.run.phases) {
      out << "  " << phase.name << " " << format_seconds(phase.seconds) << "\n";
    }
  }
  if (!report.header.warnings.empty()) {
    out << "\nWarnings\n";
    for (const std::string& warning : report.header.warnings) {
      out << wrap_paragraph(warning, "  - ", kConsoleWidth);
    }
  }
}

}  // namespace

std::string render_study_console(const StudyReport& report) {
  std::ostringstream out;
  render_header(out, report);
  for (const Table& table : report.result.tables) render_table(out, table);
  render_findings(out, report.result);
  render_tail(out, report);
  return out.str();
}

}  // namespace memtopo::study
