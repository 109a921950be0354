#pragma once
// Streams on a simulated device: which level serves a stream, and how fast, by the
// description's throughput model (docs/sim-format.md, "Streams").
#include <cstdint>
#include <string>

#include "backend/sim/description.hpp"
#include "backend/stream.hpp"

namespace memtopo::sim {

// The level that serves a stream and what the model says of it.
struct ServingLevel {
  std::string name;     // a cache's name, "shared memory" or "DRAM"
  bool per_sm = false;  // bytes_per_cycle is per SM (sm-scope caches, shared memory)
  double bytes_per_cycle = 0;
  double latency_cycles = 0;  // what Little's law divides the bytes in flight by
};

// The first cache on the stream's path whose capacity holds the stream's working set (per SM
// for scope sm, the whole footprint for scope device), shared memory on the shared path, DRAM
// otherwise; writes and copies are served where the device-scope caches hold their arrays.
// Throws StreamsUnsupported when the model gives that level no rate.
ServingLevel serving_level(const StreamSpec& spec, const SimDescription& description);

// Bytes per cycle the whole device delivers to this stream: Little's law per SM (bytes in
// flight, blocks x threads x vector x unroll, over the level's latency), capped by the issue
// rate of load instructions and by the level's peak, times the op's factor.
double modelled_bytes_per_cycle(const StreamSpec& spec, const SimDescription& description);

// Runs a stream on the model: one time per timed launch, with the model's seeded jitter.
// Throws ExperimentError for a spec the simulated device cannot run (more threads or shared
// memory per SM than it has, arrays beyond its memory), StreamsUnsupported without a model.
StreamResult simulate_stream(const StreamSpec& spec, const SimDescription& description,
                             std::uint64_t noise_seed);

}  // namespace memtopo::sim
