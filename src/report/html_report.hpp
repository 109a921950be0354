#pragma once
// The HTML report: one self-contained file (inline CSS and SVG, no script, no external font or
// link) that opens on an air-gapped machine. Sections (their ids are stable, tests look for
// them): summary (banners, device and run facts), findings (every value with its spread,
// confidence, source, method and evidence; values below the confidence threshold marked "~"
// and class "low", inconclusive ones "?"), plots (report_plots.hpp), console (the console
// report, every table of it, verbatim) and warnings.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

std::string render_html(const Topology& topology);

// The pieces render_html is made of, for pages that hold more than one device (--device all):
// one device's sections with every id prefixed by `id_prefix` ("gpu0-"; "" on a one-device
// page), and the page's start (doctype, title, the style sheet) and end (the footer).
std::string render_html_sections(const Topology& topology, const std::string& id_prefix);
std::string html_page_start(const std::string& title);
std::string html_page_end(const RunInfo& run);

}  // namespace memtopo
