#include "probes/p2p/p2p_selection.hpp"

#include "probes/core/runner.hpp"

namespace memtopo {
namespace {

constexpr std::string_view kP2pPrefix = "p2p.";

// Sets the flag of p2p probe `id`; false when no p2p probe has that id.
bool select_p2p_probe(const std::string& id, P2pSelection& selection) {
  const std::pair<const char*, bool P2pSelection::*> flags[] = {
      {"p2p.peer_access", &P2pSelection::peer_access},
      {"p2p.link", &P2pSelection::link},
      {"p2p.latency", &P2pSelection::latency},
      {"p2p.sm_bandwidth", &P2pSelection::sm_bandwidth},
      {"p2p.copy_bandwidth", &P2pSelection::copy_bandwidth},
  };
  for (const auto& [name, flag] : flags) {
    if (id == name) {
      selection.*flag = true;
      return true;
    }
  }
  return false;
}

}  // namespace

SplitSelection split_selection(const std::vector<std::string>& only) {
  SplitSelection split;
  if (only.empty()) {
    split.p2p = P2pSelection::all();
    return split;
  }
  for (const std::string& id : only) {
    if (id == kP2pElementId) {
      split.p2p = P2pSelection::all();
    } else if (id.starts_with(kP2pPrefix)) {
      if (!select_p2p_probe(id, split.p2p)) {
        throw SelectionError("unknown p2p probe id '" + id +
                             "' (memtopo --list shows the p2p.* ids)");
      }
    } else {
      split.device_ids.push_back(id);
    }
  }
  // The SM experiments need to know which pairs have access.
  if (split.p2p.latency || split.p2p.sm_bandwidth) split.p2p.peer_access = true;
  split.run_device_probes = !split.device_ids.empty();
  return split;
}

}  // namespace memtopo
