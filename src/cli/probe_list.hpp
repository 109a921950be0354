#pragma once
// --list: every probe with its id, what it needs and a one-line description.
#include <memory>
#include <ostream>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

void print_probe_list(std::ostream& out, const std::vector<std::unique_ptr<Probe>>& probes);

}  // namespace memtopo
