#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>

#include "backend/sim/sim_backend.hpp"

namespace memtopo {
namespace {

// Simulated loads per second of one chase on the bundled Hopper-like device, counting warm-up
// and timed loads alike. CPU time, not wall time: other processes on the machine do not count.
double loads_per_second(Backend& backend, const ChaseSpec& spec) {
  const std::clock_t begin = std::clock();
  backend.run(std::span<const ChaseSpec>(&spec, 1));
  const double seconds = static_cast<double>(std::clock() - begin) / CLOCKS_PER_SEC;
  const double loads =
      static_cast<double>(spec.warm_passes) * (spec.footprint_bytes / spec.stride_bytes) +
      static_cast<double>(spec.timed_loads) * spec.chasers;
  return loads / seconds;
}

ChaseSpec random_chase(std::uint64_t footprint, std::uint32_t warm_passes) {
  ChaseSpec spec;
  spec.path = LoadPath::ca;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = 128;
  spec.order = ChaseOrder::random_permutation;
  spec.seed = 3;
  spec.warm_passes = warm_passes;
  spec.timed_loads = 1u << 20;
  return spec;
}

TEST(SimThroughput, SimulatesTensOfMillionsOfLoadsPerSecond) {
  const auto backend = make_sim_backend_from_file(MEMTOPO_SOURCE_DIR "/sims/hopper-like.json");
  // L1-resident (TLB and L1 hits); L2-resident; 256 MiB (L2 misses, DRAM, TLB misses). The
  // larger the footprint, the more the simulated L2's state (10 MB for 50 MiB) misses the host's
  // own caches: the last case is bound by host memory latency.
  const double l1_resident = loads_per_second(*backend, random_chase(128 << 10, 4));
  const double l2_resident = loads_per_second(*backend, random_chase(16 << 20, 1));
  const double beyond_l2 = loads_per_second(*backend, random_chase(256 << 20, 1));
  std::printf("sim throughput (M loads/s): %.1f L1-resident, %.1f L2-resident, %.1f beyond L2\n",
              l1_resident / 1e6, l2_resident / 1e6, beyond_l2 / 1e6);
  RecordProperty("l1_resident_loads_per_second", static_cast<int>(l1_resident));
  RecordProperty("l2_resident_loads_per_second", static_cast<int>(l2_resident));
  RecordProperty("beyond_l2_loads_per_second", static_cast<int>(beyond_l2));
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  // Optimised builds only: debug and sanitizer builds are several times slower by design.
  // Floors at a quarter of what a quiet machine gives (about 35, 6 and 4 million per second):
  // CI shares two cores with the parallel test run, and these catch an accidental per-access
  // allocation or search, not a few percent.
  EXPECT_GT(l1_resident, 8e6);
  EXPECT_GT(l2_resident, 1.5e6);
  EXPECT_GT(beyond_l2, 0.75e6);
#endif
}

}  // namespace
}  // namespace memtopo
