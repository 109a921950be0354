#pragma once
// The console's Hopper section (probes/hopper): distributed shared memory with the clusters'
// placement, TMA tile copies beside plain loads, and the instruction caches.
#include <cstddef>
#include <ostream>
#include <string>

#include "model/topology.hpp"
#include "report/footnotes.hpp"

namespace memtopo {

// The elements this section shows (dsmem, tma, icache_*): the elements table and "Other
// findings" leave them out.
bool is_hopper_element(const std::string& element_id);

// Nothing when no Hopper element was measured.
void render_hopper_section(std::ostream& out, const Topology& topology, Footnotes& notes,
                           std::size_t max_width);

}  // namespace memtopo
