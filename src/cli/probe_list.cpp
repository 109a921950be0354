#include "cli/probe_list.hpp"

#include "probes/p2p/p2p_selection.hpp"
#include "report/text_table.hpp"

namespace memtopo {

void print_probe_list(std::ostream& out, const std::vector<std::unique_ptr<Probe>>& probes) {
  TextTable table({{"Probe"}, {"Description"}, {"Needs"}});
  for (const auto& probe : probes) {
    std::string needs;
    for (const std::string& need : probe->needs()) needs += (needs.empty() ? "" : ", ") + need;
    table.add_row({probe->id(), probe->description(), needs});
  }
  out << "Probes, in run order (--only takes these ids, or an element id such as l1 for all of\n"
         "that element's probes):\n\n"
      << table.render(2);
  TextTable pairs({{"Probe"}, {"Description"}, {"Needs"}});
  for (const P2pProbeInfo& probe : kP2pProbes) {
    pairs.add_row({probe.id, probe.description, probe.needs});
  }
  out << "\nBetween GPUs, with --device all or a list (p2p: all of them):\n\n" << pairs.render(2);
}

}  // namespace memtopo
