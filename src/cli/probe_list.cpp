#include "cli/probe_list.hpp"

#include "probes/p2p/p2p_selection.hpp"
#include "report/text_table.hpp"

namespace memtopo {

namespace {

// Narrow enough for a Needs column of a few ids beside a readable description.
constexpr std::size_t kNeedsWidth = 24;

TextTable probe_table() {
  using Align = TextTable::Align;
  using Overflow = TextTable::Overflow;
  return TextTable({{"Probe"},
                    {"Description", Align::left, Overflow::wrap, 30},
                    {"Needs", Align::left, Overflow::wrap, kNeedsWidth}});
}

}  // namespace

void print_probe_list(std::ostream& out, const std::vector<std::unique_ptr<Probe>>& probes,
                      std::size_t width) {
  TextTable table = probe_table();
  for (const auto& probe : probes) {
    std::string needs;
    for (const std::string& need : probe->needs()) needs += (needs.empty() ? "" : ", ") + need;
    table.add_row({probe->id(), probe->description(), needs});
  }
  out << "Probes, in run order (--only takes these ids, or an element id such as l1 for all of\n"
         "that element's probes):\n\n"
      << table.render(2, width);
  TextTable pairs = probe_table();
  for (const P2pProbeInfo& probe : kP2pProbes) {
    pairs.add_row({probe.id, probe.description, probe.needs});
  }
  out << "\nBetween GPUs, with --device all or a list (p2p: all of them):\n\n" << pairs.render(2, width);
}

}  // namespace memtopo
