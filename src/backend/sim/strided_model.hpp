#pragma once
// Strided warp requests (backend/strided_access.hpp) on a simulated device, through its caches:
// a request moves the distinct sectors its lanes touch (at the first cache on the path; lines
// where the cache is unsectored) or, in shared memory, takes as many passes as its worst bank
// conflict, or in constant memory as many passes as distinct addresses (the constant cache
// broadcasts one address per pass). Local memory is not modelled (an ExperimentError). Throughput:
// the serving level's rate (docs/sim-format.md, "Streams") spent on those sectors, capped as a
// stream's is; latency: each request's slowest sector, cache state kept from request to request.
#include <cstdint>

#include "backend/sim/description.hpp"
#include "backend/sim/memory_system.hpp"
#include "backend/strided_access.hpp"

namespace memtopo::sim {

// Bytes one request makes its serving level move, and the unit it moves them in.
struct RequestCost {
  std::uint32_t units = 0;       // sectors (lines), shared-memory or constant-cache passes
  std::uint32_t unit_bytes = 0;  // sector (line) size, banks x bank width, or 32 x element
};
RequestCost request_cost(const StridedAccessSpec& spec, const SimDescription& description);

// Throws StreamsUnsupported for throughput without a throughput model (or a level it gives no
// rate), ExperimentError for a spec the device cannot run.
StridedAccessResult simulate_strided(const StridedAccessSpec& spec,
                                     const SimDescription& description, MemorySystem& memory,
                                     std::uint64_t seed);

}  // namespace memtopo::sim
