// The ChaseSpec features the sharing, per-SM and carveout probes rely on, on a noiseless
// simulated device: eviction sweeps, private segments and reserved shared memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "backend/chain.hpp"
#include "backend/sim/sim_backend.hpp"

namespace memtopo {
namespace {

using nlohmann::json;

// L1 of 4 KiB (8 sets x 4 ways x 128 B) on ca, nc and tex; L2 of 64 KiB behind it; every
// latency exact: L1 30, L2 200, DRAM 500, timer overhead 20.
constexpr const char* kDevice = R"({
  "name": "features", "sm_count": 4, "clock_khz": 1000000, "global_memory_bytes": 1073741824,
  "dram_latency": 500, "timing_overhead": 20,
  "caches": [
    { "name": "L1", "scope": "sm", "size_bytes": 4096, "line_bytes": 128, "ways": 4,
      "hit_latency": 30, "paths": ["ca", "nc", "tex"] },
    { "name": "L2", "scope": "device", "size_bytes": 65536, "line_bytes": 128, "ways": 8,
      "hit_latency": 200, "paths": ["ca", "cg", "nc", "tex", "const"] }
  ],
  "shared_memory": { "bytes_per_sm": 16384, "banks": 32, "bank_width_bytes": 4, "latency": 25 }
})";
constexpr std::uint32_t kL1 = 30 + 20, kL2 = 200 + 20;
constexpr std::uint32_t kLine = 128;

std::unique_ptr<Backend> device(const std::function<void(json&)>& edit = {}) {
  json document = json::parse(kDevice);
  if (edit) edit(document);
  return make_sim_backend_from_text(document.dump(), "features.json");
}

ChaseSpec warm_chase(LoadPath path, std::uint64_t footprint, std::uint32_t timed_loads) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = kLine;
  spec.warm_passes = 1;
  spec.timed_loads = timed_loads;
  return spec;
}

Trace run_one(Backend& backend, const ChaseSpec& spec) {
  return backend.run(std::span<const ChaseSpec>(&spec, 1)).at(0);
}

std::vector<std::uint32_t> all(std::size_t count, std::uint32_t cycles) {
  return std::vector<std::uint32_t>(count, cycles);
}

// 16 lines of chase fit the L1; a sweep of 64 lines through it leaves none of them.
TEST(EvictionSweep, ASweepThroughTheSameCacheEvictsTheChase) {
  const auto backend = device();
  ChaseSpec spec = warm_chase(LoadPath::ca, 16 * kLine, 16);
  EXPECT_EQ(run_one(*backend, spec).cycles, all(16, kL1));
  for (LoadPath sweep_path : {LoadPath::ca, LoadPath::nc, LoadPath::tex}) {
    spec.eviction = EvictionSweep{sweep_path, 64 * kLine, kLine, 1};
    const Trace trace = run_one(*backend, spec);
    EXPECT_EQ(trace.cycles, all(16, kL2)) << to_string(sweep_path);
    EXPECT_EQ(trace.indices, chain_order(spec)) << "the timed loads continue the chase";
  }
}

TEST(EvictionSweep, ASweepOnAPathThatSkipsTheCacheLeavesItAlone) {
  const auto backend = device();
  ChaseSpec spec = warm_chase(LoadPath::ca, 16 * kLine, 16);
  for (LoadPath sweep_path : {LoadPath::cg, LoadPath::cv, LoadPath::constant}) {
    spec.eviction = EvictionSweep{sweep_path, 64 * kLine, kLine, 2};
    EXPECT_EQ(run_one(*backend, spec).cycles, all(16, kL1)) << to_string(sweep_path);
  }
  // A texture cache of its own: a tex sweep no longer reaches the L1 that serves ca.
  const auto separate = device([](json& d) {
    d["caches"][0]["paths"] = json::array({"ca", "nc"});
    json tex = d["caches"][0];
    tex["name"] = "Texture";
    tex["paths"] = json::array({"tex"});
    d["caches"].insert(d["caches"].begin() + 1, tex);
  });
  spec.eviction = EvictionSweep{LoadPath::tex, 64 * kLine, kLine, 1};
  EXPECT_EQ(run_one(*separate, spec).cycles, all(16, kL1));
  spec.path = LoadPath::tex;
  spec.eviction->path = LoadPath::ca;
  EXPECT_EQ(run_one(*separate, spec).cycles, all(16, kL1));
}

// An L1 of 8 lines, fully associative under LRU: a chase of 4 lines and a sweep of 8 evict the
// chase only if the sweep's lines are other lines, i.e. its array lies apart from the chase's.
TEST(EvictionSweep, TheSweepWalksAnArrayOfItsOwn) {
  const auto backend = device([](json& d) {
    d["caches"][0]["size_bytes"] = 8 * kLine;
    d["caches"][0]["ways"] = 0;
  });
  ChaseSpec spec = warm_chase(LoadPath::ca, 4 * kLine, 4);
  spec.eviction = EvictionSweep{LoadPath::ca, 8 * kLine, kLine, 1};
  EXPECT_EQ(run_one(*backend, spec).cycles, all(4, kL2));
  spec.eviction->footprint_bytes = 4 * kLine;  // 4 + 4 lines fit together
  EXPECT_EQ(run_one(*backend, spec).cycles, all(4, kL1));
}

// Every chaser sweeps after its own warm pass: with the sequential schedule chaser 1 warms and
// sweeps after chaser 0 was timed, so both lose their lines. Concurrent chasers sweep in turns
// after both warmed: on one chain, chaser 0's timed miss brings back the line chaser 1 loads
// next; on private segments both miss.
TEST(EvictionSweep, EveryChaserSweepsBeforeItsTimedLoads) {
  const auto backend = device();
  ChaseSpec spec = warm_chase(LoadPath::ca, 16 * kLine, 16);
  spec.chasers = 2;
  spec.eviction = EvictionSweep{LoadPath::tex, 64 * kLine, kLine, 1};
  EXPECT_EQ(run_one(*backend, spec).cycles, all(32, kL2));
  spec.schedule = ChaserSchedule::concurrent;
  std::vector<std::uint32_t> expected = all(16, kL2);
  expected.resize(32, kL1);
  EXPECT_EQ(run_one(*backend, spec).cycles, expected);
  spec.private_segments = true;
  spec.footprint_bytes = 2 * 16 * kLine;
  EXPECT_EQ(run_one(*backend, spec).cycles, all(32, kL2));
}

TEST(EvictionSweep, SweepsBeyondTheirPathsLimitAreExperimentErrors) {
  const auto backend = device();
  ChaseSpec spec = warm_chase(LoadPath::ca, 16 * kLine, 16);
  spec.eviction = EvictionSweep{LoadPath::constant, 65536 + kLine, kLine, 1};
  EXPECT_THROW(run_one(*backend, spec), ExperimentError);
  spec.eviction = EvictionSweep{LoadPath::constant, 65536, kLine, 1};
  EXPECT_NO_THROW(run_one(*backend, spec));
  spec.path = LoadPath::constant;  // one constant bank: validate() refuses
  spec.eviction = EvictionSweep{LoadPath::constant, 1024, kLine, 1};
  EXPECT_THROW(run_one(*backend, spec), ExperimentError);
}

TEST(PrivateSegments, ChaserKWalksItsOwnSegmentFromItsShiftedStart) {
  const auto backend = device();
  ChaseSpec spec = warm_chase(LoadPath::ca, 16 * kLine, 8);
  spec.order = ChaseOrder::random_permutation;
  spec.seed = 5;
  spec.chasers = 2;
  spec.private_segments = true;
  const Trace trace = run_one(*backend, spec);
  ASSERT_EQ(trace.indices.size(), 16u);
  for (std::uint32_t chaser = 0; chaser < 2; ++chaser) {
    const auto order = chain_order(spec, chaser);
    const std::vector<std::uint32_t> walked(trace.indices.begin() + 8 * chaser,
                                            trace.indices.begin() + 8 * (chaser + 1));
    EXPECT_EQ(walked, order) << "chaser " << chaser;
  }
  EXPECT_EQ(trace.cycles, all(16, kL1));  // 8 + 8 lines share the 32-line L1

  // Entered at the chain's element 3: every chaser starts at element 3 of its own segment.
  spec.start_index = chain_order(spec)[3];
  const Trace from_middle = run_one(*backend, spec);
  EXPECT_EQ(from_middle.indices[8], chain_order(spec, 1)[3]);
}

// Two instances per SM, three concurrent chasers of 24 lines each: chaser 1 has an instance to
// itself and hits; chasers 0 and 2 (warps 0 and 2) share one and thrash it.
TEST(PrivateSegments, ConcurrentChasersOnOneInstanceEvictEachOther) {
  const auto backend = device([](json& d) { d["caches"][0]["instances_per_sm"] = 2; });
  ChaseSpec spec = warm_chase(LoadPath::ca, 3 * 24 * kLine, 24);
  spec.chasers = 3;
  spec.private_segments = true;
  spec.schedule = ChaserSchedule::concurrent;
  const Trace trace = run_one(*backend, spec);
  std::vector<std::uint32_t> expected = all(24, kL2);
  const auto own = all(24, kL1);
  expected.insert(expected.end(), own.begin(), own.end());
  const auto shared = all(24, kL2);
  expected.insert(expected.end(), shared.begin(), shared.end());
  EXPECT_EQ(trace.cycles, expected);
  spec.chasers = 2;
  spec.footprint_bytes = 2 * 24 * kLine;
  EXPECT_EQ(run_one(*backend, spec).cycles, all(48, kL1));
}

// The L1 unified with shared memory, carveouts 0, 1, 2 and 6 KiB... of which the L1 gives up
// the step minus the smallest: 4 KiB, 3 KiB, 2 KiB and 1 KiB remain (sets of 512 B).
std::unique_ptr<Backend> unified_device() {
  return device([](json& d) {
    d["shared_memory"]["unified_with"] = "L1";
    d["shared_memory"]["carveout_steps_bytes"] = json::array({0, 1024, 2048, 3072});
  });
}

TEST(ReservedShared, TheUnifiedL1HoldsItsSizeLessTheCarveout) {
  const auto backend = unified_device();
  const std::uint32_t reservations[] = {0, 1, 1024, 1025, 3072};
  const std::uint64_t l1_bytes[] = {4096, 3072, 3072, 2048, 1024};
  for (std::size_t i = 0; i < std::size(reservations); ++i) {
    SCOPED_TRACE("reserved " + std::to_string(reservations[i]));
    const std::uint64_t lines = l1_bytes[i] / kLine;
    ChaseSpec fits = warm_chase(LoadPath::ca, l1_bytes[i], static_cast<std::uint32_t>(lines));
    fits.reserved_shared_bytes = reservations[i];
    EXPECT_EQ(run_one(*backend, fits).cycles, all(lines, kL1));
    // One line more overfills one set of 4 LRU ways: its 5 lines miss, the rest hit.
    ChaseSpec over =
        warm_chase(LoadPath::ca, l1_bytes[i] + kLine, static_cast<std::uint32_t>(lines + 1));
    over.reserved_shared_bytes = reservations[i];
    const Trace trace = run_one(*backend, over);
    EXPECT_EQ(std::count(trace.cycles.begin(), trace.cycles.end(), kL2), 5);
  }
}

TEST(ReservedShared, ReservationsBeyondTheLargestCarveoutAreExperimentErrors) {
  const auto backend = unified_device();
  EXPECT_EQ(backend->limits().max_reserved_shared_bytes, 3072u);
  EXPECT_EQ(backend->facts().shared_per_block_optin_bytes, 3072u);
  EXPECT_EQ(backend->facts().shared_per_sm_bytes, 16384u);
  ChaseSpec spec = warm_chase(LoadPath::ca, 8 * kLine, 8);
  spec.reserved_shared_bytes = 3073;
  EXPECT_THROW(run_one(*backend, spec), ExperimentError);
  // A shared-memory chase's own array counts towards its block's carveout.
  ChaseSpec shared = warm_chase(LoadPath::shared, 2048, 8);
  shared.stride_bytes = 4;
  shared.reserved_shared_bytes = 1024;
  EXPECT_NO_THROW(run_one(*backend, shared));
  shared.reserved_shared_bytes = 1025;
  EXPECT_THROW(run_one(*backend, shared), ExperimentError);
}

TEST(ReservedShared, WithoutAUnifiedCacheAReservationChangesNoCache) {
  const auto backend = device();
  EXPECT_EQ(backend->limits().max_reserved_shared_bytes, 16384u);
  ChaseSpec spec = warm_chase(LoadPath::ca, 4096, 32);
  spec.reserved_shared_bytes = 16384;
  EXPECT_EQ(run_one(*backend, spec).cycles, all(32, kL1));
  spec.reserved_shared_bytes = 16385;
  EXPECT_THROW(run_one(*backend, spec), ExperimentError);
}

}  // namespace
}  // namespace memtopo
