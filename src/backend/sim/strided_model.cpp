#include "backend/sim/strided_model.hpp"

#include <algorithm>
#include <limits>

#include "backend/backend.hpp"
#include "backend/chain.hpp"
#include "backend/sim/noise.hpp"
#include "backend/sim/shared_banks.hpp"
#include "backend/sim/stream_model.hpp"
#include "model/unit_factors.hpp"

namespace memtopo::sim {
namespace {

// The simulated array starts here: page- and line-aligned, as a GPU allocation is.
constexpr std::uint64_t kArrayBase = std::uint64_t{2} << 20;

const CacheDescription* first_cache_on(LoadPath path, const SimDescription& description) {
  for (const CacheDescription& cache : description.caches) {
    if (std::find(cache.paths.begin(), cache.paths.end(), path) != cache.paths.end()) {
      return &cache;
    }
  }
  return nullptr;
}

// The unit the first cache on a path moves (its sector; its line where unsectored); with no
// cache on the path, the 32-byte sectors every NVIDIA memory controller uses.
std::uint32_t first_unit_bytes(LoadPath path, const SimDescription& description) {
  constexpr std::uint32_t kUncachedSectorBytes = 32;
  const CacheDescription* cache = first_cache_on(path, description);
  return cache ? cache->sector_bytes : kUncachedSectorBytes;
}

// The stream the serving level is chosen for: the same path, footprint and occupancy.
StreamSpec equivalent_stream(const StridedAccessSpec& spec) {
  StreamSpec stream;
  stream.path = load_path_of(spec.space);
  stream.op = StreamOp::read;
  stream.placement = spec.space == AccessSpace::shared ? StreamPlacement::per_block
                                                       : StreamPlacement::shared_by_all;
  stream.footprint_bytes = walked_footprint_bytes(spec);
  stream.vector_bytes = spec.element_bytes;
  stream.blocks_per_sm = spec.blocks_per_sm;
  stream.threads_per_block = spec.threads_per_block;
  stream.unroll = kStridedRequestsInFlight;
  return stream;
}

// Useful bytes (what the lanes asked for) per SM cycle: the level's rate scaled by the share of
// the moved bytes the lanes use, capped by Little's law and the issue rate as for streams.
double useful_bytes_per_cycle(const StridedAccessSpec& spec, const SimDescription& description) {
  if (!description.throughput) {
    throw StreamsUnsupported(
        "no throughput model in this description (docs/sim-format.md, \"throughput\")");
  }
  const ThroughputDescription& model = *description.throughput;
  const ServingLevel level = serving_level(equivalent_stream(spec), description);
  const RequestCost cost = request_cost(spec, description);
  const double requested = double{kWarpLanes} * spec.element_bytes;
  const double useful_share = requested / (static_cast<double>(cost.units) * cost.unit_bytes);
  const double in_flight = static_cast<double>(spec.blocks_per_sm) * spec.threads_per_block *
                           spec.element_bytes * kStridedRequestsInFlight;
  const double issue = model.load_instructions_per_cycle > 0
                           ? model.load_instructions_per_cycle * requested
                           : std::numeric_limits<double>::infinity();
  const double per_sm_demand = std::min(in_flight / level.latency_cycles, issue);
  const double level_rate = level.bytes_per_cycle * useful_share;
  const double sms = description.sm_count;
  return level.per_sm ? sms * std::min(level_rate, per_sm_demand)
                      : std::min(level_rate, sms * per_sm_demand);
}

void simulate_throughput(const StridedAccessSpec& spec, const SimDescription& description,
                         std::uint64_t seed, StridedAccessResult& result) {
  const double bytes_per_second =
      useful_bytes_per_cycle(spec, description) * description.clock_khz * kHzPerKhz;
  result.requested_bytes = std::uint64_t{spec.blocks_per_sm} * description.sm_count *
                           spec.threads_per_block * spec.requests_per_warp * spec.element_bytes;
  SplitMix64 noise(seed);
  for (std::uint32_t launch = 0; launch < spec.timed_launches; ++launch) {
    const double jitter = description.throughput->launch_jitter * (2 * noise.uniform() - 1);
    result.seconds.push_back(result.requested_bytes / bytes_per_second * (1 + jitter));
  }
}

// One pass of the latency requests; records them when `timed`.
void latency_pass(const StridedAccessSpec& spec, const SimDescription& description,
                  MemorySystem& memory, const Route& route, Noise& noise, bool timed,
                  StridedAccessResult& result) {
  const RequestCost cost = request_cost(spec, description);
  const std::uint32_t unit_bytes = first_unit_bytes(load_path_of(spec.space), description);
  for (std::uint32_t request = 0; request < spec.latency_requests; ++request) {
    const auto offsets = lane_offsets(spec, request);
    std::uint32_t cycles = 0;
    if (spec.space == AccessSpace::shared) {
      cycles = description.shared_memory.latency * cost.units;
    } else {
      for (std::uint64_t offset : offsets) {
        const std::uint64_t first = (kArrayBase + offset) / unit_bytes;
        const std::uint64_t last = (kArrayBase + offset + spec.element_bytes - 1) / unit_bytes;
        for (std::uint64_t unit = first; unit <= last; ++unit) {
          cycles = std::max(cycles, memory.load_latency(route, unit * unit_bytes));
        }
      }
    }
    if (timed) result.latency_cycles.push_back(noise.apply(cycles));
  }
}

}  // namespace

RequestCost request_cost(const StridedAccessSpec& spec, const SimDescription& description) {
  const auto offsets = lane_offsets(spec, 0);
  if (spec.space == AccessSpace::shared) {
    const SharedMemoryDescription& shared = description.shared_memory;
    return {
        bank_conflict_degree(offsets, spec.element_bytes, shared.banks, shared.bank_width_bytes),
        shared.banks * shared.bank_width_bytes};
  }
  if (spec.space == AccessSpace::constant) {
    // The constant cache serves one address per pass, broadcast to every lane that asks for
    // it: a request takes as many passes as distinct addresses, a pass delivering at most one
    // element to each of the 32 lanes.
    return {units_touched(offsets, spec.element_bytes, spec.element_bytes),
            kWarpLanes * spec.element_bytes};
  }
  const std::uint32_t unit = first_unit_bytes(load_path_of(spec.space), description);
  return {units_touched(offsets, spec.element_bytes, unit), unit};
}

StridedAccessResult simulate_strided(const StridedAccessSpec& spec,
                                     const SimDescription& description, MemorySystem& memory,
                                     std::uint64_t seed) {
  validate(spec);
  if (spec.space == AccessSpace::local) {
    throw ExperimentError(
        "the simulated device does not model local memory (each thread's own array, "
        "interleaved across the warp)");
  }
  StridedAccessResult result;
  result.sm_clock_khz = static_cast<double>(description.clock_khz);
  result.sms = description.sm_count;
  if (spec.timed_launches > 0) simulate_throughput(spec, description, seed, result);
  if (spec.latency_requests > 0) {
    memory.start_chase(0, seed);
    const Route route = memory.route(load_path_of(spec.space), 0);
    Noise noise(description.noise, seed);
    latency_pass(spec, description, memory, route, noise, /*timed=*/false, result);
    latency_pass(spec, description, memory, route, noise, /*timed=*/true, result);
  }
  return result;
}

}  // namespace memtopo::sim
