#include "report/markdown_report.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <system_error>

#include "analysis/confidence.hpp"
#include "model/printable_text.hpp"
#include "report/console.hpp"
#include "report/markdown_text.hpp"
#include "report/footnotes.hpp"
#include "report/output_error.hpp"
#include "report/memory_map.hpp"
#include "report/report_figures.hpp"
#include "report/summary_tables.hpp"
#include "report/report_rows.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

// A section heading, and where `prefix` is set (a multi-device report: "gpu1-") an explicit
// anchor before it: the same headings repeat per GPU, so their own anchors would all jump to
// GPU 0's. The contents link to section_link's.
void section(std::ostringstream& md, const std::string& prefix, const std::string& slug,
             const std::string& title) {
  if (!prefix.empty()) md << "<a id=\"" << prefix << slug << "\"></a>\n\n";
  md << "## " << title << "\n\n";
}

std::string section_link(const std::string& prefix, const std::string& slug) {
  return "#" + prefix + slug;
}

namespace fs = std::filesystem;

// The memory map's file in the plots folder.
constexpr const char* kMapFile = "memory-map.svg";

void render_findings_section(std::ostringstream& md, const Topology& topology,
                     const std::string& prefix) {
  section(md, prefix, "findings", "Findings");
  const std::vector<FindingRow> rows = finding_rows(topology);
  if (rows.empty()) {
    md << "Nothing measured.\n\n";
    return;
  }
  md << "Marks: **~** confidence below " << format_confidence(kLowConfidence)
     << "; **?** inconclusive, or only a bound (&gt; x, &lt; x); source api: reported by CUDA, "
        "not measured. Methods are shortened; the notes below the table and the JSON report "
        "have them in full, with the evidence.\n\n";
  md << "| Finding | Value | Confidence | Source | Spread | Method |\n"
        "|---|---:|---:|---|---|---|\n";
  std::vector<std::string> notes;
  for (const FindingRow& row : rows) {
    const std::string symbol = mark_symbol(row.mark);
    std::string value = escape_markdown(row.value);
    std::string confidence = escape_markdown(row.confidence);
    if (row.mark == ValueMark::low) confidence = "**~ " + confidence + "**";
    if (row.mark == ValueMark::inconclusive || row.mark == ValueMark::bound) {
      value = "*" + value + "* **?**";
    }
    std::string method = escape_markdown(row.method_summary);
    if (!row.note.empty()) {
      notes.push_back("- **" + escape_markdown(row.subject) + "**: " + escape_markdown(row.note));
      method += " (note " + std::to_string(notes.size()) + ")";
    }
    md << "| " << escape_markdown(row.subject) << " | " << value << " | " << confidence << " | "
       << escape_markdown(row.source) << " | " << escape_markdown(row.spread) << " | " << method
       << " |\n";
  }
  if (!notes.empty()) {
    md << "\nNotes, in table order:\n\n";
    for (const std::string& note : notes) md << note << "\n";
  }
  md << "\n";
}

void render_plots(std::ostringstream& md, MarkdownReport& report,
                  const std::vector<Figure>& figures, const std::string& plots_folder,
                  const std::string& prefix) {
  section(md, prefix, "plots", "Plots");
  if (figures.empty()) md << "No curves in this run's evidence.\n\n";
  for (const Figure& figure : figures) {
    const std::string file = figure.id + ".svg";
    report.plots.emplace_back(file, figure.svg);
    // Plot ids are letters, digits and '-' (plot_id): safe as an HTML anchor.
    md << "<a id=\"" << prefix << "plot-" << figure.id << "\"></a>\n\n### " << escape_markdown(figure.title)
       << "\n\n![" << escape_markdown(figure.title) << "](" << link_path(plots_folder + "/" + file)
       << ")\n\n";
    if (!figure.caption.empty()) md << escape_markdown(figure.caption) << "\n\n";
  }
}

// The memory map (a file beside the plots), then the compact tables and their notes.
void render_overview(std::ostringstream& md, MarkdownReport& report, const Topology& topology,
                     const std::string& plots_folder) {
  if (const std::string map = memory_map_svg(topology); !map.empty()) {
    report.plots.emplace_back(kMapFile, map);
    md << "![Memory map](" << link_path(plots_folder + "/" + kMapFile)
       << ")\n\nThe measured hierarchy: every box with what memtopo found (size, line, latency, "
          "read bandwidth); a dashed box holds a value of low confidence.\n\n";
  }
  const Summary summary = summary_tables(topology);
  for (const SummaryTable& table : summary.tables) {
    md << "## " << escape_markdown(table.title) << "\n\n";
    for (const std::string& line : table.before) md << escape_markdown(line) << "\n\n";
    md << markdown_table(table.table) << "\n";
    for (const std::string& line : table.after) md << escape_markdown(line) << "\n\n";
  }
  if (!summary.notes.empty()) {
    md << "Notes:\n\n";
    for (std::size_t i = 0; i < summary.notes.items().size(); ++i) {
      md << "- \\[" << i + 1 << "\\] " << escape_markdown(summary.notes.items()[i]) << "\n";
    }
    md << "\n";
  }
}

void render_contents(std::ostringstream& md, const Topology& topology,
                     const std::vector<Figure>& figures, const std::string& prefix) {
  md << "## Contents\n\n- [Plots](" << section_link(prefix, "plots") << ")\n";
  for (const Figure& figure : figures) {
    md << "  - [" << escape_markdown(figure.title) << "](" << section_link(prefix, "plot-")
       << figure.id << ")\n";
  }
  md << "- [Findings](" << section_link(prefix, "findings") << ")\n- [Device and run]("
     << section_link(prefix, "device-and-run") << ")\n- [Console report]("
     << section_link(prefix, "console-report") << ")\n- [Warnings]("
     << section_link(prefix, "warnings") << ") (" << topology.warnings.size() << ")\n\n";
}

}  // namespace

MarkdownReport render_markdown(const Topology& topology, const std::string& plots_folder,
                               const std::string& anchor_prefix) {
  MarkdownReport report;
  std::ostringstream md;
  md << "# memtopo report: " << escape_markdown(topology.device.name) << "\n\n";
  for (const std::string& banner : report_banners(topology)) {
    md << "> **" << escape_markdown(banner) << "**\n\n";
  }
  const std::vector<Figure> figures = report_figures(topology);
  render_overview(md, report, topology, plots_folder);
  render_contents(md, topology, figures, anchor_prefix);
  render_plots(md, report, figures, plots_folder, anchor_prefix);
  render_findings_section(md, topology, anchor_prefix);
  section(md, anchor_prefix, "device-and-run", "Device and run");
  for (const auto& [label, text] : header_facts(topology)) {
    md << "- **" << escape_markdown(label) << "**: " << escape_markdown(text) << "\n";
  }
  md << "\n";
  const std::string console = printable_lines(render_console(topology));
  const std::string fence = fence_for(console);
  section(md, anchor_prefix, "console-report", "Console report");
  md << fence << "text\n" << console << fence << "\n\n";
  section(md, anchor_prefix, "warnings", "Warnings");
  if (topology.warnings.empty()) md << "None.\n";
  for (const std::string& warning : topology.warnings)
    md << "- " << escape_markdown(warning) << "\n";
  report.text = md.str();
  return report;
}

fs::path markdown_plots_folder(const fs::path& markdown_file) {
  return markdown_file.parent_path() / (markdown_file.stem().string() + "-plots");
}

OutputTarget prepare_markdown_output(const std::string& markdown_file) {
  OutputTarget target = prepare_output(markdown_file);
  const fs::path folder = markdown_plots_folder(target.path);
  std::error_code error;
  if (fs::exists(folder, error) && !fs::is_directory(folder, error)) {
    throw OutputError("cannot write the markdown report's plots to " +
                      printable_text(folder.string()) + ": it exists and is not a directory");
  }
  return target;
}

void write_markdown_report(const Topology& topology, const OutputTarget& target) {
  write_markdown_report(
      [&topology](const std::string& plots_folder) {
        return render_markdown(topology, plots_folder);
      },
      target);
}

void write_markdown_report(const std::function<MarkdownReport(const std::string&)>& render,
                           const OutputTarget& target) {
  const fs::path folder = markdown_plots_folder(target.path);
  const MarkdownReport report = render(folder.filename().string());
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    throw OutputError("cannot create the plots folder " + printable_text(folder.string()) + ": " +
                      error.message());
  }
  for (const auto& [file, svg] : report.plots) {
    fs::create_directories((folder / file).parent_path(), error);  // a multi-device run's gpu<n>/
    write_output(prepare_output((folder / file).string()), svg, /*flush_to_disk=*/false);
  }
  write_output(target, report.text, /*flush_to_disk=*/true);
}

}  // namespace memtopo
