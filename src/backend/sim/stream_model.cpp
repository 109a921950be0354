#include "backend/sim/stream_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/backend.hpp"
#include "backend/chain.hpp"
#include "model/unit_factors.hpp"

namespace memtopo::sim {
namespace {

const ThroughputDescription& model_of(const SimDescription& description) {
  if (!description.throughput) {
    throw StreamsUnsupported(
        "no throughput model in this description (docs/sim-format.md, \"throughput\")");
  }
  return *description.throughput;
}

bool on_path(const CacheDescription& cache, LoadPath path) {
  return std::find(cache.paths.begin(), cache.paths.end(), path) != cache.paths.end();
}

ServingLevel rated(std::string name, bool per_sm, double rate, double latency) {
  if (!(rate > 0)) {
    throw StreamsUnsupported("the throughput model gives " + name +
                             " no rate, and a stream would be served there");
  }
  return ServingLevel{std::move(name), per_sm, rate, std::max(latency, 1.0)};
}

ServingLevel cache_level(const SimDescription& description, std::size_t index) {
  const CacheDescription& cache = description.caches[index];
  const double rate = description.throughput->cache_bytes_per_cycle[index];
  if (cache.scope == CacheScope::sm) return rated(cache.name, true, rate, cache.hit_latency);
  // Far partitions answer later: the mean latency over the partitions a stream touches alike.
  // (copy_on_read: a stream re-reads lines its own SMs brought in, which their partitions hold.)
  const bool spread = cache.partitions > 1 && cache.partition_policy == PartitionPolicy::home;
  const double far_share = spread ? (cache.partitions - 1.0) / cache.partitions : 0;
  return rated(cache.name, false, rate, cache.hit_latency + far_share * cache.far_latency_extra);
}

// DRAM for a stream whose device working set is `device_set` bytes, each read again only after
// all of them (stream_launch_start_bytes). Device caches on its path that keep a share of their
// lines against a stream (loop_retained_share) answer that many bytes of every pass: DRAM moves
// the rest, so the stream runs at DRAM's rate / (1 - hit share), at most at those caches' rate.
ServingLevel dram_level(const StreamSpec& spec, const SimDescription& description,
                        std::uint64_t device_set) {
  const ThroughputDescription& model = *description.throughput;
  double retained = 0;
  double cap = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < description.caches.size(); ++i) {
    const CacheDescription& cache = description.caches[i];
    const double share = i < model.loop_retained_share.size() ? model.loop_retained_share[i] : 0;
    if (cache.scope != CacheScope::device || !on_path(cache, spec.path) || !(share > 0)) continue;
    retained += share * static_cast<double>(cache.size_bytes);
    if (model.cache_bytes_per_cycle[i] > 0) cap = std::min(cap, model.cache_bytes_per_cycle[i]);
  }
  const double hits =
      device_set > 0 ? std::min(1.0, retained / static_cast<double>(device_set)) : 0;
  const double dram = model.dram_bytes_per_cycle;
  const double rate = hits < 1 ? std::min(cap, dram / (1 - hits)) : cap;
  return rated("DRAM", false, std::isfinite(rate) ? rate : dram, description.dram_latency);
}

void check_runnable(const StreamSpec& spec, const SimDescription& description) {
  const ThroughputDescription& model = model_of(description);
  validate(spec);
  const auto fail = [](const std::string& what) { throw ExperimentError("stream spec: " + what); };
  const std::uint64_t threads = std::uint64_t{spec.blocks_per_sm} * spec.threads_per_block;
  if (spec.placement != StreamPlacement::one_pass && threads > model.max_threads_per_sm) {
    fail(std::to_string(spec.blocks_per_sm) + " blocks of " +
         std::to_string(spec.threads_per_block) + " threads exceed the " +
         std::to_string(model.max_threads_per_sm) + " threads an SM holds");
  }
  const std::uint64_t shared = spec.blocks_per_sm * stream_shared_bytes_per_block(spec);
  if (shared > description.shared_memory.bytes_per_sm) {
    fail(std::to_string(shared) + " bytes of shared memory per SM, more than its " +
         std::to_string(description.shared_memory.bytes_per_sm));
  }
  if (stream_device_bytes(spec) > description.global_memory_bytes / 2) {
    fail("arrays of " + std::to_string(stream_device_bytes(spec)) +
         " bytes exceed half the device memory");
  }
}

// A looping DRAM stream's rate relative to a one-pass grid's (looping_dram_factor_within up to
// the model's bound, _beyond above it); 1 for every other stream.
double looping_dram_factor(const StreamSpec& spec, const SimDescription& description,
                           const ServingLevel& level) {
  const ThroughputDescription& model = *description.throughput;
  if (level.name != "DRAM" || spec.placement == StreamPlacement::one_pass) return 1;
  const std::uint64_t device_set =
      stream_arrays(spec.op) * stream_geometry(spec, description.sm_count).footprint_bytes;
  return device_set > model.looping_dram_beyond_bytes ? model.looping_dram_factor_beyond
                                                      : model.looping_dram_factor_within;
}

// Writes, copies and triads relative to reads of the same level.
double op_factor(StreamOp op, const ThroughputDescription& model) {
  switch (op) {
    case StreamOp::read:
      return 1;
    case StreamOp::write:
      return model.write_factor;
    case StreamOp::copy:
      return model.copy_factor;
    case StreamOp::triad:
      return model.triad_factor;
    case StreamOp::triad3:
      return model.triad3_factor;
  }
  return 1;
}

}  // namespace

ServingLevel serving_level(const StreamSpec& spec, const SimDescription& description) {
  model_of(description);
  if (spec.path == LoadPath::shared) {
    return rated("shared memory", true, description.throughput->shared_bytes_per_cycle,
                 description.shared_memory.latency);
  }
  const StreamGeometry geometry = stream_geometry(spec, description.sm_count);
  // A copy's two arrays (a triad's three) are in the device caches at once; per SM only its
  // reads stay in L1.
  const std::uint64_t device_set = stream_arrays(spec.op) * geometry.footprint_bytes;
  const std::uint64_t sm_set =
      spec.placement == StreamPlacement::per_block
          ? geometry.footprint_bytes
          : (geometry.footprint_bytes + description.sm_count - 1) / description.sm_count;
  for (std::size_t i = 0; i < description.caches.size(); ++i) {
    const CacheDescription& cache = description.caches[i];
    if (!on_path(cache, spec.path)) continue;
    if (cache.scope == CacheScope::sm) {
      // Stores do not allocate in an SM's cache: writes and copies go to the device caches.
      if (spec.op == StreamOp::read && cache.size_bytes >= sm_set) {
        return cache_level(description, i);
      }
    } else if (cache.size_bytes / cache.segments >= device_set) {
      return cache_level(description, i);
    }
  }
  return dram_level(spec, description, device_set);
}

double modelled_bytes_per_cycle(const StreamSpec& spec, const SimDescription& description) {
  const ThroughputDescription& model = model_of(description);
  const ServingLevel level = serving_level(spec, description);
  // A one-pass grid runs in waves: as many of its blocks at once as an SM holds.
  const std::uint64_t resident_blocks =
      spec.placement == StreamPlacement::one_pass
          ? std::max<std::uint64_t>(1, model.max_threads_per_sm / spec.threads_per_block)
          : spec.blocks_per_sm;
  const double in_flight = static_cast<double>(resident_blocks) * spec.threads_per_block *
                           spec.vector_bytes * spec.unroll;
  const double issue =
      model.load_instructions_per_cycle > 0
          ? model.load_instructions_per_cycle * kStreamWarpThreads * spec.vector_bytes
          : std::numeric_limits<double>::infinity();
  const double per_sm_demand = std::min(in_flight / level.latency_cycles, issue);
  const double sms = description.sm_count;
  const double rate = level.per_sm ? sms * std::min(level.bytes_per_cycle, per_sm_demand)
                                   : std::min(level.bytes_per_cycle, sms * per_sm_demand);
  return rate * looping_dram_factor(spec, description, level) * op_factor(spec.op, model);
}

StreamResult simulate_stream(const StreamSpec& spec, const SimDescription& description,
                             std::uint64_t noise_seed) {
  check_runnable(spec, description);
  const ThroughputDescription& model = *description.throughput;
  const StreamGeometry geometry = stream_geometry(spec, description.sm_count);
  const double bytes_per_second =
      modelled_bytes_per_cycle(spec, description) * description.clock_khz * kHzPerKhz;
  SplitMix64 noise(noise_seed);
  StreamResult result;
  for (std::uint32_t t = 0; t < spec.timed_launches; ++t) {
    const double jitter = model.launch_jitter * (2 * noise.uniform() - 1);
    result.seconds.push_back(geometry.bytes_moved / bytes_per_second * (1 + jitter));
  }
  result.bytes_moved = geometry.bytes_moved;
  result.footprint_bytes = geometry.footprint_bytes;
  result.sm_clock_khz = static_cast<double>(description.clock_khz);
  result.memory_clock_khz = static_cast<double>(model.memory_clock_khz);
  result.sms = description.sm_count;
  return result;
}

}  // namespace memtopo::sim
