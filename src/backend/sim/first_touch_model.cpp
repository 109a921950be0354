#include "backend/sim/first_touch_model.hpp"

#include <string>

#include "backend/backend.hpp"
#include "backend/sim/memory_system.hpp"
#include "backend/sim/noise.hpp"

namespace memtopo::sim {
namespace {

// The device-scope cache that serves ld.global.cg (the L2), or nullptr.
const CacheDescription* l2_of(const SimDescription& description) {
  for (const CacheDescription& cache : description.caches) {
    if (cache.scope != CacheScope::device) continue;
    for (const LoadPath path : cache.paths) {
      if (path == LoadPath::cg) return &cache;
    }
  }
  return nullptr;
}

}  // namespace

L2FirstTouchResult simulate_first_touch(const L2FirstTouchSpec& spec,
                                        const SimDescription& description, std::uint64_t call,
                                        std::uint64_t seed) {
  validate(spec);
  if (spec.warmer_sm >= description.sm_count) {
    throw ExperimentError("warmer SM " + std::to_string(spec.warmer_sm) + " does not exist (" +
                          std::to_string(description.sm_count) + " SMs)");
  }
  const CacheDescription* l2 = l2_of(description);
  if (l2 == nullptr) {
    throw ExperimentError("the simulated device has no device-scope cache on the cg path");
  }
  Noise noise(description.noise, seed);
  const std::uint32_t warmer_partition = near_partition(*l2, spec.warmer_sm);
  L2FirstTouchResult result;
  result.warmer_sm = spec.warmer_sm;
  result.writer_sm = spec.warmer_sm == 0 ? description.sm_count - 1 : 0;
  result.clock_khz = static_cast<double>(description.clock_khz);
  for (std::uint32_t sm = 0; sm < description.sm_count; ++sm) {
    if (sm == spec.warmer_sm) continue;
    const std::uint32_t own = near_partition(*l2, sm);
    L2ReaderTouches touches;
    touches.sm_id = sm;
    touches.overhead_cycles = description.timing_overhead;
    for (std::uint32_t i = 0; i < spec.lines_per_reader; ++i) {
      // Lines of their own per call and reader, as the GPU's rounds give.
      const std::uint64_t line =
          (call * description.sm_count + sm) * kMaxFirstTouchLines + i;
      bool first_far = false;
      bool second_far = false;
      if (l2->partitions > 1) {
        if (l2->partition_policy == PartitionPolicy::home) {
          first_far = second_far = partition_of_line(line, l2->partitions) != own;
        } else {
          // The warmer's side holds every line; another side holds only the lines whose home
          // (by address) it is, and copies the others on their first read.
          first_far = own != warmer_partition && partition_of_line(line, l2->partitions) != own;
        }
      }
      const auto cost = [&](bool far) {
        return noise.apply(description.timing_overhead + l2->hit_latency +
                           (far ? l2->far_latency_extra : 0));
      };
      touches.first_cycles.push_back(cost(first_far));
      touches.second_cycles.push_back(cost(second_far));
    }
    result.readers.push_back(std::move(touches));
  }
  return result;
}

}  // namespace memtopo::sim
