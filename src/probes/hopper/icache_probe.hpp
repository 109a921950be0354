#pragma once
// Instruction caches (thesis 004, 6.2): icache_l0.size and the levels behind it.
#include <memory>

#include "probes/core/probe.hpp"

namespace memtopo {

std::unique_ptr<Probe> make_icache_probe();

}  // namespace memtopo
