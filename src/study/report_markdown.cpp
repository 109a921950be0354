// A study as GitHub markdown: the HTML page's sections (facts, findings, plots, console report)
// with the markdown pieces of the discovery's report (report/markdown_text.hpp); the plots are
// SVG files beside the markdown, as a discovery's are.
#include <sstream>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "report/console.hpp"
#include "report/markdown_text.hpp"
#include "report/svg_plot.hpp"
#include "study/report.hpp"

namespace memtopo::study {
namespace {

void render_facts(std::ostringstream& md, const StudyReport& report) {
  const StudyResult& result = report.result;
  const RunInfo& run = report.header.run;
  if (run.simulated) md << "> **" << escape_markdown(simulated_banner(run.sim_file)) << "**\n\n";
  if (run.interrupted) {
    md << "> **INTERRUPTED: the run was stopped early; the results are partial**\n\n";
  }
  md << "# memtopo study " << escape_markdown(result.id) << ": " << escape_markdown(result.title)
     << "\n\n- Device: " << escape_markdown(report.header.device.name) << " ("
     << escape_markdown(report.header.device.backend)
     << ")\n- Status: " << escape_markdown(result.status)
     << (result.reason.empty() ? "" : ": " + escape_markdown(result.reason)) << "\n- Run: memtopo "
     << escape_markdown(run.tool_version) << " (" << escape_markdown(run.git_describe) << "), "
     << escape_markdown(run.timestamp_utc) << ", "
     << escape_markdown(format_seconds(run.duration_seconds)) << "\n\n";
}

// One row per finding; a confidence below the threshold is marked "~", as in the HTML.
void render_markdown_findings(std::ostringstream& md, const StudyResult& result) {
  md << "## Findings\n\n";
  if (result.findings.empty()) {
    md << "None: no curve of this run changed in a way the study explains.\n\n";
    return;
  }
  md << "| Table | What | Why | Tied to | Confidence |\n|---|---|---|---|---:|\n";
  for (const Finding& finding : result.findings) {
    const bool low = finding.confidence && *finding.confidence < kLowConfidence;
    md << "| " << escape_markdown(finding.table) << " | " << (low ? "~ " : "")
       << escape_markdown(finding.what) << " | " << escape_markdown(finding.why) << " | "
       << escape_markdown(finding.tied_to) << " | "
       << (finding.confidence ? format_number(*finding.confidence, 2) : std::string("-")) << " |\n";
  }
  md << "\n";
}

}  // namespace

MarkdownReport render_study_markdown(const StudyReport& report, const std::string& plots_folder) {
  MarkdownReport markdown;
  std::ostringstream md;
  render_facts(md, report);
  render_markdown_findings(md, report.result);
  md << "## Plots\n\n";
  const std::vector<Plot> plots = study_plots(report.result);
  if (plots.empty()) md << "No measured curves in this run.\n\n";
  for (const Plot& plot : plots) {
    const std::string file = plot.id + ".svg";
    md << "<a id=\"plot-" << plot.id << "\"></a>\n\n![" << escape_markdown(plot.title) << "]("
       << link_path(plots_folder + "/" + file) << ")\n\n"
       << escape_markdown(plot.caption) << "\n\n";
    markdown.plots.emplace_back(file, render_svg(plot));
  }
  const std::string console = printable_lines(render_study_console(report));
  const std::string fence = fence_for(console);
  md << "## Console report\n\n" << fence << "text\n" << console << fence << "\n";
  markdown.text = md.str();
  return markdown;
}

}  // namespace memtopo::study
