#pragma once
// The reports of a study run: JSON (schema "memtopo-study/1", with the run header and device
// facts as a discovery writes them) and the console text. Views of a StudyReport only.
#include <string>

#include <vector>

#include "model/topology.hpp"
#include "report/markdown_report.hpp"
#include "report/svg_plot.hpp"
#include "study/result.hpp"

namespace memtopo::study {

inline constexpr const char* kStudySchemaVersion = "memtopo-study/1";

struct StudyReport {
  // The run (tool, arguments, phases, lock, simulated), device facts and warnings, as in a
  // discovery; `header.elements` stays empty.
  Topology header;
  StudyResult result;
};

nlohmann::ordered_json study_to_json(const StudyReport& report);
// Whether a parsed memtopo document is a study's (schema "memtopo-study/...").
bool is_study_document(const nlohmann::ordered_json& document);
// Reads study_to_json's form back; anything else, or a key of the wrong type, is a
// TopologyJsonError naming `origin` (report_read.cpp).
StudyReport study_from_json(const nlohmann::ordered_json& document, const std::string& origin);
// study_to_json indented by two spaces, ending in a newline.
std::string render_study_json(const StudyReport& report);

// The SIMULATED banner (simulated runs), the device line, the study's status, each table
// (measured values as p50 ± stdev, low confidences marked ~), the findings, the notes, the
// phase timings and warnings.
std::string render_study_console(const StudyReport& report);

// One chart per y column of every table with a plot (Table::plot): a curve per series value,
// p5-p95 whiskers, hollow points below the confidence threshold, the table's findings as
// vertical markers. x values <= 0 stay off a log2 axis (the caption says how many).
std::vector<Plot> study_plots(const StudyResult& result);

// One self-contained HTML page: the run's facts, the findings (low confidence marked "~"),
// the charts and the console report verbatim. Section ids: summary, findings, plots, console.
std::string render_study_html(const StudyReport& report);

// The same as GitHub markdown (report_markdown.cpp): facts, findings, the charts as SVG files
// linked from `plots_folder` (<plot id>.svg), the console report verbatim.
MarkdownReport render_study_markdown(const StudyReport& report, const std::string& plots_folder);

}  // namespace memtopo::study
