// L2 segments in the simulator (a device cache split into equal arrays, SM s using segment
// s mod n) and batches whose specs share the device caches: the loader's keys and checks, the
// memory model, and the backend running a batch together.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "backend/backend.hpp"
#include "backend/sim/description_loader.hpp"
#include "backend/sim/memory_system.hpp"
#include "backend/sim/sim_backend.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;

// A noiseless device: L2 of 64 KiB (128-byte lines, 8 ways: 64 sets) answering in 200 cycles,
// DRAM in 500, no L1 on the cg path, no timer overhead.
constexpr const char* kDevice = R"({
  "name": "segments", "sm_count": 4, "clock_khz": 1000000, "global_memory_bytes": 1073741824,
  "dram_latency": 500,
  "caches": [
    { "name": "L1", "scope": "sm", "size_bytes": 4096, "line_bytes": 128, "ways": 4,
      "hit_latency": 30, "paths": ["ca"] },
    { "name": "L2", "scope": "device", "size_bytes": 65536, "line_bytes": 128, "ways": 8,
      "hit_latency": 200, "paths": ["ca", "cg"] }
  ],
  "shared_memory": { "bytes_per_sm": 16384, "banks": 32, "bank_width_bytes": 4, "latency": 25 }
})";
constexpr std::uint32_t kL2Hit = 200, kDram = 500;
constexpr std::uint64_t kL2Bytes = 65536, kLineBytes = 128;

json device(const std::function<void(json&)>& edit = {}) {
  json document = json::parse(kDevice);
  if (edit) edit(document);
  return document;
}

SimDescription load(const json& document) {
  return parse_description(document.dump(), "t.json");
}

void expect_error(const json& document, const std::string& expected) {
  try {
    load(document);
    ADD_FAILURE() << "no DescriptionError; expected one containing: " << expected;
  } catch (const DescriptionError& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
        << "message: " << error.what() << "\nexpected to contain: " << expected;
  }
}

TEST(SegmentsLoader, DefaultsToOneSegmentAndIsolatedSpecs) {
  const SimDescription description = load(device());
  EXPECT_EQ(description.caches[1].segments, 1u);
  EXPECT_FALSE(description.batch_shares_device_caches);
}

TEST(SegmentsLoader, ReadsSegmentsAndBatchSharing) {
  const SimDescription description = load(device([](json& d) {
    d["caches"][1]["segments"] = 2;
    d["batch_shares_device_caches"] = true;
  }));
  EXPECT_EQ(description.caches[1].segments, 2u);
  EXPECT_TRUE(description.batch_shares_device_caches);
  // A fully associative cache splits into segments of one set each.
  EXPECT_EQ(load(device([](json& d) {
              d["caches"][1]["ways"] = 0;
              d["caches"][1]["segments"] = 4;
            }))
                .caches[1]
                .segments,
            4u);
}

TEST(SegmentsLoader, BadSegmentsAreNamedWithTheReason) {
  expect_error(device([](json& d) { d["caches"][0]["segments"] = 2; }),
               "t.json: caches[0].segments: only a cache of scope \"device\" has segments");
  expect_error(device([](json& d) { d["caches"][1]["segments"] = 0; }),
               "t.json: caches[1].segments: must be at least 1");
  // 64 sets do not split into 3 segments of whole sets.
  expect_error(device([](json& d) { d["caches"][1]["segments"] = 3; }),
               "t.json: caches[1].segments: size_bytes 65536 does not split into 3 segments of "
               "whole sets: it must be a multiple of segments x line_bytes x ways = 3072");
  expect_error(device([](json& d) {
                 d["caches"][1]["ways"] = json::array({256, 256});
                 d["caches"][1]["segments"] = 2;
               }),
               "t.json: caches[1].segments: needs an integer ways");
  // A bit-selected index selects the sets of one segment: 32 of them with 2 segments.
  expect_error(device([](json& d) {
                 d["caches"][1]["segments"] = 2;
                 d["caches"][1]["set_index"] = {{"bits", {7, 8, 9, 10, 11, 12}}};
               }),
               "t.json: caches[1].set_index.bits: 6 bits select 2^6 sets, but the cache has 32 "
               "sets");
  EXPECT_NO_THROW(load(device([](json& d) {
    d["caches"][1]["segments"] = 2;
    d["caches"][1]["set_index"] = {{"bits", {7, 8, 9, 10, 11}}};
  })));
  expect_error(device([](json& d) { d["batch_shares_device_caches"] = 1; }),
               "t.json: batch_shares_device_caches: expected true or false, got 1");
}

// Latencies of cg loads of `lines` consecutive lines from `route`, after one warm walk.
std::vector<std::uint32_t> second_walk(MemorySystem& memory, const Route& route,
                                       std::uint64_t lines) {
  for (std::uint64_t i = 0; i < lines; ++i) memory.load_latency(route, i * kLineBytes);
  std::vector<std::uint32_t> latencies;
  for (std::uint64_t i = 0; i < lines; ++i) {
    latencies.push_back(memory.load_latency(route, i * kLineBytes));
  }
  return latencies;
}

bool all_equal(const std::vector<std::uint32_t>& values, std::uint32_t expected) {
  return std::all_of(values.begin(), values.end(), [&](std::uint32_t v) { return v == expected; });
}

TEST(SegmentsMemory, OneSmFillsItsSegmentOnly) {
  MemorySystem memory(load(device([](json& d) { d["caches"][1]["segments"] = 2; })));
  const std::uint64_t segment_lines = kL2Bytes / 2 / kLineBytes;
  memory.start_chase(0, 1);
  EXPECT_TRUE(all_equal(second_walk(memory, memory.route(LoadPath::cg, 0), segment_lines), kL2Hit));
  // One line more per set than the segment's 8 ways: LRU thrashes, every load misses.
  constexpr std::uint64_t kWays = 8;
  memory.start_chase(0, 1);
  EXPECT_TRUE(all_equal(
      second_walk(memory, memory.route(LoadPath::cg, 0), segment_lines + segment_lines / kWays),
      kDram));
}

TEST(SegmentsMemory, SmsOfOneSegmentShareItsLinesAndOthersDoNot) {
  MemorySystem memory(load(device([](json& d) { d["caches"][1]["segments"] = 2; })));
  const SmStart slots[] = {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}};
  memory.start_chases(slots);
  const Route sm0 = memory.route(0, LoadPath::cg, 0);
  const Route sm1 = memory.route(1, LoadPath::cg, 0);
  const Route sm2 = memory.route(2, LoadPath::cg, 0);
  EXPECT_EQ(memory.load_latency(sm0, 0), kDram);
  EXPECT_EQ(memory.load_latency(sm1, 0), kDram);   // segment 1: not there yet
  EXPECT_EQ(memory.load_latency(sm2, 0), kL2Hit);  // segment 0, filled by SM 0
  EXPECT_EQ(memory.load_latency(sm1, 0), kL2Hit);
  // sm-scope caches stay per slot: SM 0's L1 fill is not SM 2's.
  const Route ca0 = memory.route(0, LoadPath::ca, 0);
  const Route ca2 = memory.route(2, LoadPath::ca, 0);
  EXPECT_EQ(memory.load_latency(ca0, 4096), kDram);
  EXPECT_EQ(memory.load_latency(ca0, 4096), 30u);
  EXPECT_EQ(memory.load_latency(ca2, 4096), kL2Hit);
}

TEST(SegmentsMemory, PartitionsStillDecideNearAndFarInsideASegment) {
  MemorySystem memory(load(device([](json& d) {
    d["caches"][1]["segments"] = 2;
    d["caches"][1]["partitions"] = 2;
    d["caches"][1]["far_latency_extra"] = 50;
  })));
  memory.start_chase(1, 1);
  const Route route = memory.route(LoadPath::cg, 0);
  for (std::uint64_t line = 0; line < 16; ++line) {
    memory.load_latency(route, line * kLineBytes);
    const bool near = partition_of_line(line, 2) == 1;  // SM 1 is near partition 1
    EXPECT_EQ(memory.load_latency(route, line * kLineBytes), near ? kL2Hit : kL2Hit + 50);
  }
}

// Timed loads of a cg chase over 3/4 of a segment, on `sm`.
ChaseSpec three_quarters_on(std::uint32_t sm) {
  ChaseSpec spec;
  spec.path = LoadPath::cg;
  spec.footprint_bytes = kL2Bytes / 2 * 3 / 4;
  spec.stride_bytes = kLineBytes;
  spec.warm_passes = 1;
  spec.timed_loads = 256;
  spec.sm = sm;
  return spec;
}

std::vector<Trace> run_pair(Backend& backend, std::uint32_t a, std::uint32_t b) {
  const ChaseSpec batch[] = {three_quarters_on(a), three_quarters_on(b)};
  return backend.run(batch);
}

TEST(BatchSharing, ChasesOfOneSegmentEvictEachOtherOnlyWhenTheBatchShares) {
  const auto backend = make_sim_backend_from_text(device([](json& d) {
                                                    d["caches"][1]["segments"] = 2;
                                                    d["batch_shares_device_caches"] = true;
                                                  }).dump(),
                                                  "t.json");
  for (const Trace& trace : run_pair(*backend, 0, 1)) {
    EXPECT_TRUE(all_equal(trace.cycles, kL2Hit)) << "SM " << trace.sm_id;
  }
  for (const Trace& trace : run_pair(*backend, 0, 2)) {
    EXPECT_TRUE(all_equal(trace.cycles, kDram)) << "SM " << trace.sm_id;
  }
  // Specs that run alone (the default) never see each other.
  const auto alone = make_sim_backend_from_text(
      device([](json& d) { d["caches"][1]["segments"] = 2; }).dump(), "t.json");
  for (const Trace& trace : run_pair(*alone, 0, 2)) {
    EXPECT_TRUE(all_equal(trace.cycles, kL2Hit)) << "SM " << trace.sm_id;
  }
}

TEST(BatchSharing, ASpecAloneRunsAsWithoutSharing) {
  const auto noisy = [](bool shares) {
    return [shares](json& d) {
      d["noise"] = {{"seed", 5}, {"jitter_cycles", 3}};
      d["caches"][1]["policy"] = "random";
      if (shares) d["batch_shares_device_caches"] = true;
    };
  };
  const auto shared = make_sim_backend_from_text(device(noisy(true)).dump(), "t.json");
  const auto isolated = make_sim_backend_from_text(device(noisy(false)).dump(), "t.json");
  const ChaseSpec spec = three_quarters_on(3);
  const Trace a = shared->run(std::span(&spec, 1)).at(0);
  const Trace b = isolated->run(std::span(&spec, 1)).at(0);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(a.overhead_samples, b.overhead_samples);
}

TEST(BatchSharing, TogetherEachChaseMakesTheLoadsItWouldAlone) {
  // Two specs on SMs of different segments: nothing shared, so each trace is what it is alone,
  // for every schedule and with several chasers and an eviction sweep.
  const auto backend = make_sim_backend_from_text(device([](json& d) {
                                                    d["caches"][1]["segments"] = 2;
                                                    d["batch_shares_device_caches"] = true;
                                                  }).dump(),
                                                  "t.json");
  const auto alone = make_sim_backend_from_text(
      device([](json& d) { d["caches"][1]["segments"] = 2; }).dump(), "t.json");
  for (ChaserSchedule schedule : {ChaserSchedule::sequential, ChaserSchedule::concurrent}) {
    ChaseSpec a = three_quarters_on(0);
    a.path = LoadPath::ca;
    a.chasers = 3;
    a.private_segments = true;
    a.schedule = schedule;
    a.eviction = EvictionSweep{LoadPath::ca, 8192, 128, 1};
    ChaseSpec b = three_quarters_on(1);
    b.timed_loads = 100;
    const ChaseSpec batch[] = {a, b};
    const std::vector<Trace> together = backend->run(batch);
    const std::vector<Trace> apart = alone->run(batch);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(together[i].cycles, apart[i].cycles) << i;
      EXPECT_EQ(together[i].indices, apart[i].indices) << i;
    }
  }
}

}  // namespace
}  // namespace memtopo::sim
