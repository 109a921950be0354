#pragma once
// The memory elements memtopo knows, with their kind, scope and the load paths probed on them,
// so that every probe (and the API facts) describes an element the same way.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// The element `id` of the topology, created with its kind, scope and load paths when absent.
// Throws std::invalid_argument for an id this table does not know.
Element& element_for(Topology& topology, const std::string& id);

}  // namespace memtopo
