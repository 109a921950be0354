#pragma once
// The L2 first-touch experiment (backend/l2_first_touch.hpp) on a simulated device: what each
// reader's first and second load of lines the warmer SM wrote cost, by the description's
// partitions (docs/sim-format.md, Partitions), plus the timing overhead and noise.
#include <cstdint>

#include "backend/l2_first_touch.hpp"
#include "backend/sim/description.hpp"

namespace memtopo::sim {

// `call` numbers the launches (each gets lines of its own and its own noise draws from `seed`).
L2FirstTouchResult simulate_first_touch(const L2FirstTouchSpec& spec,
                                        const SimDescription& description, std::uint64_t call,
                                        std::uint64_t seed);

}  // namespace memtopo::sim
