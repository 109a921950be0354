#pragma once
// --list: every probe with its id, what it needs and a one-line description.
#include <memory>
#include <ostream>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

// Within `width` columns: descriptions and needs wrap under their column.
void print_probe_list(std::ostream& out, const std::vector<std::unique_ptr<Probe>>& probes,
                      std::size_t width);

}  // namespace memtopo
