#include "report/markdown_report.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <system_error>

#include "analysis/confidence.hpp"
#include "model/printable_text.hpp"
#include "report/console.hpp"
#include "report/footnotes.hpp"
#include "report/output_error.hpp"
#include "report/report_plots.hpp"
#include "report/report_rows.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

// Text in a table cell or a paragraph: characters that markdown or the HTML GitHub allows in it
// would interpret are escaped, and a cell stays on one line.
std::string escape_markdown(const std::string& text) {
  std::string out;
  for (char c : printable_lines(text)) {
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '#':
        out += '\\';
        out += c;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A code fence longer than any run of backticks in `text`, so that the text cannot close it.
std::string fence_for(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

// A relative link: letters, digits and "-._/" stay, every other byte is percent-encoded, so
// that a folder named "my run (1)-plots" still links.
std::string link_path(const std::string& path) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

void render_findings(std::ostringstream& md, const Topology& topology) {
  md << "## Findings\n\n";
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

void render_plots(std::ostringstream& md, MarkdownReport& report, const Topology& topology,
                  const std::string& plots_folder) {
  md << "## Plots\n\n";
  const std::vector<Plot> plots = report_plots(topology);
  if (plots.empty()) md << "No curves in this run's evidence.\n\n";
  for (const Plot& plot : plots) {
    const std::string file = plot.id + ".svg";
    report.plots.emplace_back(file, render_svg(plot));
    md << "### " << escape_markdown(plot.title) << "\n\n![" << escape_markdown(plot.title) << "]("
       << link_path(plots_folder + "/" + file) << ")\n\n";
    if (!plot.caption.empty()) md << escape_markdown(plot.caption) << "\n\n";
  }
}

}  // namespace

MarkdownReport render_markdown(const Topology& topology, const std::string& plots_folder) {
  MarkdownReport report;
  std::ostringstream md;
  md << "# memtopo report: " << escape_markdown(topology.device.name) << "\n\n";
  for (const std::string& banner : report_banners(topology)) {
    md << "> **" << escape_markdown(banner) << "**\n\n";
  }
  for (const auto& [label, text] : header_facts(topology)) {
    md << "- **" << escape_markdown(label) << "**: " << escape_markdown(text) << "\n";
  }
  md << "\n";
  render_findings(md, topology);
  render_plots(md, report, topology, plots_folder);
  const std::string console = printable_lines(render_console(topology));
  const std::string fence = fence_for(console);
  md << "## Console report\n\n" << fence << "text\n" << console << fence << "\n\n";
  md << "## Warnings\n\n";
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
  const fs::path folder = markdown_plots_folder(target.path);
  const MarkdownReport report = render_markdown(topology, folder.filename().string());
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    throw OutputError("cannot create the plots folder " + printable_text(folder.string()) + ": " +
                      error.message());
  }
  for (const auto& [file, svg] : report.plots) {
    write_output(prepare_output((folder / file).string()), svg, /*flush_to_disk=*/false);
  }
  write_output(target, report.text, /*flush_to_disk=*/true);
}

}  // namespace memtopo
