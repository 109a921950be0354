// A multi-device run as GitHub markdown: the map of the GPUs, the p2p family's matrices (the
// console's tables, verbatim), then each GPU's report as a one-device run writes it, its
// headings one level down and its plots in a folder of its own (gpu<position>/).
#include <sstream>

#include "report/console_p2p.hpp"
#include "report/markdown_report.hpp"
#include "report/markdown_text.hpp"
#include "report/memory_map.hpp"
#include "report/multi_device_report.hpp"

namespace memtopo {
namespace {

// Every heading of `text` one level down ("# x" -> "## x"), code blocks left as they are; the
// title (the first "# " line) becomes `title`.
std::string demote_headings(const std::string& text, const std::string& title) {
  std::istringstream lines(text);
  std::ostringstream out;
  std::string line;
  std::string fence;  // the open code block's fence (fence_for: longer than any run inside)
  bool titled = false;
  while (std::getline(lines, line)) {
    const bool in_code = !fence.empty();
    if (!in_code && line.rfind("```", 0) == 0) {
      fence = line.substr(0, line.find_first_not_of('`'));
    } else if (in_code && line == fence) {
      fence.clear();
    }
    if (!in_code && !titled && line.rfind("# ", 0) == 0) {
      out << "## " << title << "\n";
      titled = true;
      continue;
    }
    if (!in_code && line.rfind("#", 0) == 0) out << "#";
    out << line << "\n";
  }
  return out.str();
}

}  // namespace

MarkdownReport render_multi_device_markdown(const MultiDeviceReport& report,
                                            const std::string& plots_folder) {
  MarkdownReport markdown;
  std::ostringstream md;
  md << "# memtopo multi-device run: " << report.devices.size() << " GPUs\n\n![Memory map]("
     << link_path(plots_folder + "/memory-map.svg") << ")\n\n";
  markdown.plots.emplace_back("memory-map.svg", render_memory_map_svg(memory_map(report)));
  md << "## Peer to peer\n\n";
  if (report.p2p) {
    const std::string console = render_p2p_console(*report.p2p);
    const std::string fence = fence_for(console);
    md << fence << "text\n" << console << fence << "\n\n";
  } else {
    md << "No p2p probe was selected.\n\n";
  }
  for (std::size_t position = 0; position < report.devices.size(); ++position) {
    const std::string folder = "gpu" + std::to_string(position);
    MarkdownReport device =
        render_markdown(report.devices[position], plots_folder + "/" + folder, folder + "-");
    const std::string title = "GPU " + std::to_string(position) + ": " +
                              escape_markdown(report.devices[position].device.name);
    md << demote_headings(device.text, title) << "\n";
    for (auto& [file, svg] : device.plots) markdown.plots.emplace_back(folder + "/" + file, svg);
  }
  markdown.text = md.str();
  return markdown;
}

}  // namespace memtopo
