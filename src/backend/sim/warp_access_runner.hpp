#pragma once
// Runs warp accesses (backend/warp_access.hpp) on the simulated shared memory.
#include <cstdint>

#include "backend/experiment.hpp"
#include "backend/sim/description.hpp"
#include "backend/warp_access.hpp"

namespace memtopo::sim {

// Records `spec` as the GPU kernel would, on SM `sm`: every timed access costs the shared
// memory's `latency` per pass times the warp's conflict degree (shared_banks.hpp, for loads of
// spec.word_bytes), plus the description's timing_overhead, plus noise drawn from `seed`; the
// overhead samples are the timing_overhead with the same noise. Warm accesses leave no trace:
// shared memory has no state to warm. `spec` must have passed memtopo::validate.
Trace run_warp_access(const WarpAccessSpec& spec, const SimDescription& description,
                      std::uint32_t sm, std::uint64_t seed);

}  // namespace memtopo::sim
