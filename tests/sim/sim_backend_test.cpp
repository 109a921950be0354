#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/chain.hpp"
#include "backend/sim/memory_system.hpp"
#include "backend/sim/sim_backend.hpp"

namespace memtopo {
namespace {

using nlohmann::json;

// A noiseless device whose every latency is known: L1 30, L2 200, DRAM 500, shared 25, and a
// timer overhead of 20 on every record.
constexpr const char* kExact = R"({
  "name": "exact", "sm_count": 4, "clock_khz": 1000000, "global_memory_bytes": 1073741824,
  "dram_latency": 500, "timing_overhead": 20,
  "caches": [
    { "name": "L1", "scope": "sm", "size_bytes": 4096, "line_bytes": 128, "sector_bytes": 32,
      "ways": 4, "hit_latency": 30, "paths": ["ca", "nc", "tex"] },
    { "name": "L2", "scope": "device", "size_bytes": 65536, "line_bytes": 128, "ways": 8,
      "hit_latency": 200, "paths": ["ca", "cg", "nc", "tex", "const"] }
  ],
  "shared_memory": { "bytes_per_sm": 16384, "banks": 32, "bank_width_bytes": 4, "latency": 25 }
})";
constexpr std::uint32_t kOverhead = 20;
constexpr std::uint32_t kL1Cycles = 30 + kOverhead, kL2Cycles = 200 + kOverhead,
                        kDramCycles = 500 + kOverhead;

std::unique_ptr<Backend> exact_backend(const std::function<void(json&)>& edit = {}) {
  json document = json::parse(kExact);
  if (edit) edit(document);
  return make_sim_backend_from_text(document.dump(), "exact.json");
}

ChaseSpec chase(LoadPath path, std::uint64_t footprint, std::uint32_t stride,
                std::uint32_t warm_passes, std::uint32_t timed_loads) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = stride;
  spec.warm_passes = warm_passes;
  spec.timed_loads = timed_loads;
  return spec;
}

Trace run_one_chase(Backend& backend, const ChaseSpec& spec) {
  return backend.run(std::span<const ChaseSpec>(&spec, 1)).at(0);
}

std::vector<std::uint32_t> repeated(std::vector<std::uint32_t> pattern, std::size_t times) {
  std::vector<std::uint32_t> values;
  for (std::size_t i = 0; i < times; ++i) {
    values.insert(values.end(), pattern.begin(), pattern.end());
  }
  return values;
}

TEST(SimBackend, FactsComeFromTheDescription) {
  const auto backend = exact_backend();
  EXPECT_EQ(backend->kind(), "sim");
  const DeviceFacts& facts = backend->facts();
  EXPECT_EQ(facts.name, "exact");
  EXPECT_EQ(facts.backend, "sim");
  EXPECT_EQ(facts.sm_count, 4u);
  EXPECT_EQ(facts.cc_major, 9);
  EXPECT_EQ(facts.cc_minor, 0);
  EXPECT_EQ(facts.sm_clock_khz, 1000000u);
  EXPECT_EQ(facts.global_memory_bytes, 1073741824u);
  EXPECT_EQ(facts.l2_bytes, 65536u);
  EXPECT_EQ(facts.shared_per_sm_bytes, 16384u);
  EXPECT_EQ(facts.shared_per_block_bytes, 16384u);
  EXPECT_EQ(facts.constant_bytes, 65536u);
  EXPECT_TRUE(facts.global_l1_cache_supported);
  EXPECT_EQ(backend->current_sm_clock_khz(), 1000000.0);

  const auto no_l1_on_ca = exact_backend([](json& d) {
    d["caches"][0]["paths"] = json::array({"nc"});
    d["caches"][1]["name"] = "LLC";
    d["compute_capability"] = json::array({8, 6});
  });
  EXPECT_FALSE(no_l1_on_ca->facts().global_l1_cache_supported);
  EXPECT_EQ(no_l1_on_ca->facts().l2_bytes, 0u);  // no device cache named "L2"
  EXPECT_EQ(no_l1_on_ca->facts().cc_major, 8);
  EXPECT_EQ(no_l1_on_ca->facts().cc_minor, 6);
}

TEST(SimBackend, LimitsComeFromTheDescription) {
  const BackendLimits limits = exact_backend()->limits();
  EXPECT_EQ(limits.max_footprint_bytes, 1073741824u / 2);
  EXPECT_EQ(limits.max_constant_footprint_bytes, 65536u);
  EXPECT_EQ(limits.max_shared_footprint_bytes, 16384u);
  EXPECT_EQ(limits.max_timed_loads, 1u << 20);
  EXPECT_EQ(limits.max_chasers, 32u);
  EXPECT_EQ(limits.concurrent_slots, 4u);
}

TEST(SimBackend, IndicesFollowTheChainOrderFromTheStartIndex) {
  const auto backend = exact_backend();
  ChaseSpec spec = chase(LoadPath::ca, 2048, 64, 2, 80);
  spec.order = ChaseOrder::random_permutation;
  spec.seed = 99;
  const auto order = chain_order(spec);
  ASSERT_EQ(order.size(), 32u);
  const Trace trace = run_one_chase(*backend, spec);
  ASSERT_EQ(trace.indices.size(), 80u);
  for (std::size_t k = 0; k < 80; ++k) EXPECT_EQ(trace.indices[k], order[k % 32]) << k;

  spec.start_index = order[5];
  const Trace from_middle = run_one_chase(*backend, spec);
  for (std::size_t k = 0; k < 80; ++k) EXPECT_EQ(from_middle.indices[k], order[(k + 5) % 32]) << k;

  ChaseSpec listed = chase(LoadPath::ca, 4096, 4, 1, 6);
  listed.order = ChaseOrder::explicit_indices;
  listed.indices = {96, 0, 640};
  // start_index 0: the chase enters the listed cycle at word 0.
  EXPECT_EQ(run_one_chase(*backend, listed).indices,
            (std::vector<std::uint32_t>{0, 640, 96, 0, 640, 96}));
}

TEST(SimBackend, WarmL1ChaseRecordsHitLatencyPlusTimingOverhead) {
  const auto backend = exact_backend();
  const Trace trace = run_one_chase(*backend, chase(LoadPath::ca, 2048, 128, 1, 64));
  EXPECT_EQ(trace.cycles, std::vector<std::uint32_t>(64, kL1Cycles));
  EXPECT_EQ(trace.overhead_samples, std::vector<std::uint32_t>(32, kOverhead));
  EXPECT_EQ(trace.overhead_cycles, 20.0);
  EXPECT_EQ(trace.clock_khz, 1000000.0);
}

TEST(SimBackend, EveryChaseStartsCold) {
  const auto backend = exact_backend();
  // 16 lines fit the 4 KiB L1: one cold pass from DRAM, then hits.
  const ChaseSpec spec = chase(LoadPath::ca, 2048, 128, 0, 32);
  std::vector<std::uint32_t> expected(16, kDramCycles);
  expected.resize(32, kL1Cycles);
  const std::vector<ChaseSpec> batch(2, spec);
  const auto traces = backend->run(batch);
  EXPECT_EQ(traces[0].cycles, expected);
  EXPECT_EQ(traces[1].cycles, expected);  // the first spec of the batch warmed nothing for it
  EXPECT_EQ(run_one_chase(*backend, spec).cycles, expected);
}

TEST(SimBackend, SectorMissesOfAPresentLineAreServedByTheNextLevel) {
  const auto backend = exact_backend();
  // 32-byte stride: the first sector of each line comes from DRAM, the other three miss in the
  // sectored L1 and hit the unsectored L2, which took the whole line.
  const Trace trace = run_one_chase(*backend, chase(LoadPath::ca, 1024, 32, 0, 64));
  std::vector<std::uint32_t> expected = repeated({kDramCycles, kL2Cycles, kL2Cycles, kL2Cycles}, 8);
  expected.resize(64, kL1Cycles);  // the second pass finds every sector in L1
  EXPECT_EQ(trace.cycles, expected);
}

TEST(SimBackend, EachPathTakesItsCaches) {
  const auto backend = exact_backend();
  EXPECT_EQ(run_one_chase(*backend, chase(LoadPath::nc, 2048, 128, 1, 16)).cycles,
            std::vector<std::uint32_t>(16, kL1Cycles));
  EXPECT_EQ(run_one_chase(*backend, chase(LoadPath::cg, 2048, 128, 1, 16)).cycles,
            std::vector<std::uint32_t>(16, kL2Cycles));
  EXPECT_EQ(run_one_chase(*backend, chase(LoadPath::constant, 2048, 128, 1, 16)).cycles,
            std::vector<std::uint32_t>(16, kL2Cycles));
  EXPECT_EQ(run_one_chase(*backend, chase(LoadPath::cv, 2048, 128, 1, 16)).cycles,
            std::vector<std::uint32_t>(16, kDramCycles));
  EXPECT_EQ(run_one_chase(*backend, chase(LoadPath::shared, 2048, 4, 0, 16)).cycles,
            std::vector<std::uint32_t>(16, 25 + kOverhead));
}

TEST(SimBackend, FootprintBeyondTheL1MissesItUnderLru) {
  const auto backend = exact_backend();
  // 40 lines cycled through 8 sets of 4 LRU ways: 5 lines per set, each evicted before reuse.
  const Trace trace = run_one_chase(*backend, chase(LoadPath::ca, 40 * 128, 128, 1, 40));
  EXPECT_EQ(trace.cycles, std::vector<std::uint32_t>(40, kL2Cycles));
}

TEST(SimBackend, ConcurrentChasersInterleaveLoadByLoad) {
  // One L1 of 8 lines, fully associative, nothing behind it; a chain of 16 lines.
  const auto backend = exact_backend([](json& d) {
    d["caches"][0]["size_bytes"] = 1024;
    d["caches"][0]["ways"] = 0;
    d["caches"].erase(1);
  });
  ChaseSpec spec = chase(LoadPath::ca, 16 * 128, 128, 0, 16);
  spec.chasers = 2;
  const Trace sequential = run_one_chase(*backend, spec);
  // Chaser 1 starts after chaser 0 streamed 16 lines through 8: its lines are gone.
  EXPECT_EQ(sequential.cycles, std::vector<std::uint32_t>(32, kDramCycles));
  spec.schedule = ChaserSchedule::concurrent;
  const Trace concurrent = run_one_chase(*backend, spec);
  // Chaser 1 loads each line right after chaser 0 brought it in.
  std::vector<std::uint32_t> expected(16, kDramCycles);
  expected.resize(32, kL1Cycles);
  EXPECT_EQ(concurrent.cycles, expected);
  EXPECT_EQ(concurrent.indices, repeated(chain_order(spec), 2));
}

TEST(SimBackend, SplitInstancesGiveAlternateWarpsTheirOwnCache) {
  const auto backend = exact_backend([](json& d) {
    d["caches"][0]["instances_per_sm"] = 2;
    d["caches"].erase(1);
  });
  ChaseSpec spec = chase(LoadPath::ca, 8 * 128, 128, 0, 8);
  spec.chasers = 3;
  const Trace trace = run_one_chase(*backend, spec);
  std::vector<std::uint32_t> expected(16,
                                      kDramCycles);  // warps 0 and 1: each its own cold instance
  expected.resize(24, kL1Cycles);                    // warp 2 shares warp 0's instance
  EXPECT_EQ(trace.cycles, expected);
}

TEST(SimBackend, TlbReachSeparatesHitsFromMisses) {
  const auto backend = exact_backend([](json& d) {
    d["tlbs"] = json::parse(R"([{ "name": "TLB", "entries": 4, "ways": 0, "page_bytes": 2097152,
                                  "miss_latency_extra": 40 }])");
  });
  const std::uint32_t page = 2097152;
  EXPECT_EQ(run_one_chase(*backend, chase(LoadPath::cv, 4ull * page, page, 1, 12)).cycles,
            std::vector<std::uint32_t>(12, kDramCycles));
  EXPECT_EQ(run_one_chase(*backend, chase(LoadPath::cv, 5ull * page, page, 1, 15)).cycles,
            std::vector<std::uint32_t>(15, kDramCycles + 40));
}

TEST(SimBackend, ArraysStartAtTheDocumentedAddressesAndPartitionsFollowTheSm) {
  // L2 with two partitions, far lines 100 cycles slower; loads on cg see only L2.
  const auto backend = exact_backend([](json& d) {
    d["caches"][1]["partitions"] = 2;
    d["caches"][1]["far_latency_extra"] = 100;
  });
  std::vector<ChaseSpec> batch(3, chase(LoadPath::cg, 32 * 128, 128, 1, 32));
  batch[0].sm = 0;
  batch[1].sm = 1;
  batch[2].sm = 0;
  // Spec 1 spans 3 MiB but visits only its first 32 lines, which fit the L2.
  batch[1].footprint_bytes = 3 << 20;
  batch[1].order = ChaseOrder::explicit_indices;
  for (std::uint32_t line = 0; line < 32; ++line) batch[1].indices.push_back(line * 32);
  const auto traces = backend->run(batch);
  // Spec 0 starts at 2 MiB; each next one at the first 2 MiB boundary after the previous array.
  const std::uint64_t bases[] = {2u << 20, 4u << 20, 8u << 20};
  int far_lines = 0;
  for (std::size_t s = 0; s < 3; ++s) {
    ASSERT_EQ(traces[s].sm_id, *batch[s].sm);
    for (std::size_t k = 0; k < 32; ++k) {
      const std::uint64_t line = (bases[s] + 4ull * traces[s].indices[k]) / 128;
      const bool near = sim::partition_of_line(line, 2) == *batch[s].sm % 2;
      far_lines += near ? 0 : 1;
      EXPECT_EQ(traces[s].cycles[k], near ? kL2Cycles : kL2Cycles + 100)
          << "spec " << s << " load " << k;
    }
  }
  EXPECT_GT(far_lines, 20);  // both kinds occur
  EXPECT_LT(far_lines, 76);
}

TEST(SimBackend, UnplacedSpecsTakeDistinctSmsRoundRobin) {
  const auto backend = exact_backend();
  const auto sms_of = [&](std::vector<ChaseSpec> batch) {
    std::vector<std::uint32_t> sms;
    for (const Trace& trace : backend->run(batch)) sms.push_back(trace.sm_id);
    return sms;
  };
  const ChaseSpec spec = chase(LoadPath::ca, 256, 128, 0, 1);
  EXPECT_EQ(sms_of(std::vector<ChaseSpec>(6, spec)),
            (std::vector<std::uint32_t>{0, 1, 2, 3, 0, 1}));
  std::vector<ChaseSpec> mixed(3, spec);
  mixed[2].sm = 0;
  EXPECT_EQ(sms_of(mixed), (std::vector<std::uint32_t>{1, 2, 0}));
}

TEST(SimBackend, RequestsBeyondTheDeviceAreExperimentErrors) {
  const auto backend = exact_backend();
  const auto rejects = [&](ChaseSpec spec) {
    EXPECT_THROW(run_one_chase(*backend, spec), ExperimentError);
  };
  ChaseSpec on_sm_4 = chase(LoadPath::ca, 256, 128, 0, 1);
  on_sm_4.sm = 4;
  rejects(on_sm_4);
  rejects(chase(LoadPath::constant, 65536 + 128, 128, 0, 1));
  rejects(chase(LoadPath::shared, 16384 + 4, 4, 0, 1));
  rejects(chase(LoadPath::ca, (1ull << 29) + 128, 1 << 20, 0, 1));
  rejects(chase(LoadPath::ca, 256, 0, 0, 1));  // memtopo::validate: zero stride
  rejects(chase(LoadPath::ca, 256, 128, 0, (1u << 20) + 1));
  ChaseSpec crowded = chase(LoadPath::ca, 256, 128, 0, 1);
  crowded.chasers = 33;
  rejects(crowded);
  EXPECT_NO_THROW(run_one_chase(*backend, chase(LoadPath::constant, 65536, 128, 0, 1)));
  EXPECT_NO_THROW(run_one_chase(*backend, chase(LoadPath::shared, 16384, 4, 0, 1)));
}

TEST(SimBackend, NoiseRepeatsForASeedDiffersForAnotherAndBetweenRuns) {
  const auto noisy = [](std::uint64_t seed) {
    return exact_backend([seed](json& d) {
      d["noise"] = {{"seed", seed},
                    {"jitter_cycles", 2},
                    {"outlier_probability", 0.001},
                    {"outlier_cycles", 300}};
    });
  };
  const ChaseSpec spec = chase(LoadPath::ca, 2048, 128, 1, 4000);
  const Trace first = run_one_chase(*noisy(7), spec);
  EXPECT_EQ(first.cycles, run_one_chase(*noisy(7), spec).cycles);
  EXPECT_EQ(first.overhead_samples, run_one_chase(*noisy(7), spec).overhead_samples);
  EXPECT_NE(first.cycles, run_one_chase(*noisy(8), spec).cycles);
  const auto backend = noisy(7);
  run_one_chase(*backend, spec);
  const Trace again = run_one_chase(*backend, spec);
  EXPECT_NE(first.cycles, again.cycles);  // the second chase of a backend gets fresh noise
  for (std::uint32_t cycles : first.cycles) {
    ASSERT_TRUE((cycles >= kL1Cycles - 2 && cycles <= kL1Cycles + 2) ||
                (cycles >= kL1Cycles + 298 && cycles <= kL1Cycles + 302))
        << cycles;
  }
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(SimBackend, BundledDescriptionsLoadAndRunOnEveryPath) {
  int loaded = 0;
  for (const char* folder : {"/sims", "/tests/sims"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(MEMTOPO_SOURCE_DIR + std::string(folder))) {
      if (entry.path().extension() != ".json") continue;
      SCOPED_TRACE(entry.path().string());
      const auto backend = make_sim_backend_from_file(entry.path().string());
      ++loaded;
      EXPECT_EQ(backend->facts().backend, "sim");
      EXPECT_GT(backend->facts().l2_bytes, 0u);
      for (LoadPath path : kAllLoadPaths) {
        const Trace trace = run_one_chase(*backend, chase(path, 4096, 128, 1, 32));
        EXPECT_EQ(trace.cycles.size(), 32u);
      }
    }
  }
  EXPECT_GE(loaded, 5);
}

// The bundled non-power-of-two L1 (227 KiB, 8 ways, 227 sets), with noise removed: a footprint
// of exactly its size hits after warming; one line more overflows set 0 alone.
TEST(SimBackend, NonPowerOfTwoL1HoldsExactlyItsSize) {
  json document = json::parse(read_text(MEMTOPO_SOURCE_DIR "/tests/sims/l1-227k.json"));
  document.erase("noise");
  const auto backend = make_sim_backend_from_text(document.dump(), "l1-227k.json");
  const std::uint64_t size = 232448;
  const std::uint32_t hit = 33 + 20;
  const Trace fits = run_one_chase(*backend, chase(LoadPath::ca, size, 128, 1, 1816));
  EXPECT_EQ(fits.cycles, std::vector<std::uint32_t>(1816, hit));
  const Trace overflows = run_one_chase(*backend, chase(LoadPath::ca, size + 128, 128, 1, 1817));
  EXPECT_EQ(std::count(overflows.cycles.begin(), overflows.cycles.end(), hit), 1817 - 9);
}

}  // namespace
}  // namespace memtopo
