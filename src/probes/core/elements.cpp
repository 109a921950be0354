#include "probes/core/elements.hpp"

#include <stdexcept>
#include <vector>

namespace memtopo {
namespace {

struct KnownElement {
  const char* id;
  const char* kind;
  const char* scope;
  std::vector<std::string> load_paths;  // only the paths memtopo actually probes it through
};

const std::vector<KnownElement>& known_elements() {
  static const std::vector<KnownElement> table = {
      {"l1", "cache", "sm", {"ca"}},
      {"tex", "cache", "sm", {"tex"}},
      {"ro", "cache", "sm", {"nc"}},
      {"constant_l1", "cache", "sm", {"const"}},
      {"l2", "cache", "device", {"cg", "ca"}},
      {"dram", "memory", "device", {"cg"}},
      {"shared", "scratchpad", "sm", {"shared"}},
      {"constant", "memory", "device", {"const"}},
      {"constant_l15", "cache", "sm", {"const"}},
      {"tlb_l1", "tlb", "sm", {"cg"}},
      {"tlb_l2", "tlb", "device", {"cg"}},
      {"tlb_l3", "tlb", "device", {"cg"}},
      // Hopper (probes/hopper): shared memory across a cluster's SMs, the tensor memory
      // accelerator's copies, and the instruction caches by the order their steps appear.
      {"dsmem", "scratchpad", "cluster", {"shared::cluster"}},
      {"tma", "copy_engine", "sm", {"cp.async.bulk"}},
      {"icache_l0", "instruction_cache", "sm", {}},
      {"icache_l1", "instruction_cache", "sm", {}},
      {"icache_l15", "instruction_cache", "sm", {}},
  };
  return table;
}

}  // namespace

Element& element_for(Topology& topology, const std::string& id) {
  for (const KnownElement& known : known_elements()) {
    if (id != known.id) continue;
    Element& element = topology.element(id, known.kind, known.scope);
    if (element.load_paths.empty()) element.load_paths = known.load_paths;
    return element;
  }
  throw std::invalid_argument("unknown memory element id '" + id + "'");
}

}  // namespace memtopo
