#pragma once
// The report as GitHub markdown: the banners, the memory map and the compact tables
// (summary_tables.hpp), a table of contents, the plots in reading order (report_figures.hpp),
// every finding in a table (value, confidence with its mark, source, spread, method), the device
// and run facts, and the console report verbatim. The map and the plots are SVG files in a
// folder beside the markdown (FILE's stem + "-plots/": memory-map.svg, <plot id>.svg).
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/topology.hpp"
#include "report/output_file.hpp"

namespace memtopo {

struct MarkdownReport {
  std::string text;
  // The plots: file name (inside the plots folder) and SVG text.
  std::vector<std::pair<std::string, std::string>> plots;
};

// `plots_folder` is how the markdown links to the plots' folder (relative to the file).
// `anchor_prefix` (a multi-device report's "gpu1-") makes the contents' links and the sections'
// anchors the report's own: empty, the headings' own anchors serve.
MarkdownReport render_markdown(const Topology& topology, const std::string& plots_folder,
                               const std::string& anchor_prefix = "");

// Where the plots of a markdown report at `markdown_file` go: report.md -> report-plots/.
std::filesystem::path markdown_plots_folder(const std::filesystem::path& markdown_file);

// Checked before a run: the markdown file (prepare_output) and its plots folder (a folder, or
// a path where one can be made). Throws OutputError.
OutputTarget prepare_markdown_output(const std::string& markdown_file);

// Writes the plots (each file atomically, the folder created if needed), then the markdown
// file, so that a markdown file never links to plots that are not there. Throws OutputError.
void write_markdown_report(const Topology& topology, const OutputTarget& target);

// The same for any kind's markdown: `render` is given the plots folder as the markdown links it.
void write_markdown_report(const std::function<MarkdownReport(const std::string&)>& render,
                           const OutputTarget& target);

}  // namespace memtopo
