#include <gtest/gtest.h>

#include "backend/sim/memory_system.hpp"

namespace memtopo::sim {
namespace {

constexpr std::uint32_t kDram = 500;

CacheDescription cache(std::string name, CacheScope scope, std::uint64_t size,
                       std::uint32_t hit_latency, std::vector<LoadPath> paths) {
  CacheDescription description;
  description.name = std::move(name);
  description.scope = scope;
  description.size_bytes = size;
  description.line_bytes = 128;
  description.sector_bytes = 128;
  description.associativity.ways = 4;
  description.hit_latency = hit_latency;
  description.paths = std::move(paths);
  return description;
}

// An L1 (30 cycles, ca/nc) in front of an L2 (200 cycles, ca/cg/nc/const), DRAM at 500.
SimDescription two_levels() {
  SimDescription description;
  description.sm_count = 4;
  description.dram_latency = kDram;
  description.caches.push_back(cache("L1", CacheScope::sm, 4096, 30, {LoadPath::ca, LoadPath::nc}));
  description.caches.push_back(
      cache("L2", CacheScope::device, 65536, 200,
            {LoadPath::ca, LoadPath::cg, LoadPath::nc, LoadPath::constant}));
  description.shared_memory.bytes_per_sm = 49152;
  description.shared_memory.banks = 32;
  description.shared_memory.bank_width_bytes = 4;
  description.shared_memory.latency = 24;
  return description;
}

TEST(PartitionOfLine, IsTheDocumentedFibonacciHash) {
  // ((line * 0x9E3779B97F4A7C15) mod 2^64) >> 32, worked out by hand for lines 0..4.
  EXPECT_EQ(partition_of_line(0, 2), 0u);
  EXPECT_EQ(partition_of_line(1, 2), 1u);  // 2654435769
  EXPECT_EQ(partition_of_line(2, 2), 0u);  // 1013904242
  EXPECT_EQ(partition_of_line(3, 2), 0u);  // 3668340012
  EXPECT_EQ(partition_of_line(4, 2), 1u);  // 2027808485
  EXPECT_EQ(partition_of_line(2, 3), 2u);
  EXPECT_EQ(partition_of_line(10, 3), 1u);  // 774553918
  EXPECT_EQ(partition_of_line(12345, 1), 0u);
}

TEST(MemorySystem, AMissFillsEveryLevelOnThePathBeforeTheHit) {
  MemorySystem memory(two_levels());
  memory.start_chase(0, 1);
  const Route ca = memory.route(LoadPath::ca, 0);
  const Route cg = memory.route(LoadPath::cg, 0);
  EXPECT_EQ(memory.load_latency(ca, 0), kDram);
  EXPECT_EQ(memory.load_latency(ca, 0), 30u);
  EXPECT_EQ(memory.load_latency(cg, 0), 200u);  // the ca miss filled L2 too
  // A cg load fills only L2: the ca load after it misses L1 and hits L2, then L1 has it.
  EXPECT_EQ(memory.load_latency(cg, 4096), kDram);
  EXPECT_EQ(memory.load_latency(ca, 4096), 200u);
  EXPECT_EQ(memory.load_latency(ca, 4096), 30u);
}

TEST(MemorySystem, PathsWithoutCachesGoToDramAndSharedMemoryHasItsOwnLatency) {
  MemorySystem memory(two_levels());
  memory.start_chase(0, 1);
  const Route cv = memory.route(LoadPath::cv, 0);
  EXPECT_EQ(memory.load_latency(cv, 0), kDram);
  EXPECT_EQ(memory.load_latency(cv, 0), kDram);
  const Route shared = memory.route(LoadPath::shared, 0);
  EXPECT_EQ(memory.load_latency(shared, 0), 24u);
  EXPECT_EQ(memory.load_latency(shared, 4), 24u);
}

TEST(MemorySystem, StartChaseMakesEveryCacheCold) {
  MemorySystem memory(two_levels());
  memory.start_chase(0, 1);
  const Route ca = memory.route(LoadPath::ca, 0);
  memory.load_latency(ca, 0);
  EXPECT_EQ(memory.load_latency(ca, 0), 30u);
  memory.start_chase(0, 1);
  EXPECT_EQ(memory.load_latency(memory.route(LoadPath::ca, 0), 0), kDram);
}

TEST(MemorySystem, SectoredL1MissesOnASectorItDoesNotHold) {
  SimDescription description = two_levels();
  description.caches[0].sector_bytes = 32;
  MemorySystem memory(description);
  memory.start_chase(0, 1);
  const Route ca = memory.route(LoadPath::ca, 0);
  EXPECT_EQ(memory.load_latency(ca, 0), kDram);
  EXPECT_EQ(memory.load_latency(ca, 32), 200u);  // L1 sector miss; unsectored L2 has the line
  EXPECT_EQ(memory.load_latency(ca, 32), 30u);
  EXPECT_EQ(memory.load_latency(ca, 4), 30u);
}

TEST(MemorySystem, FarPartitionsAddTheirExtraAndNearnessFollowsTheSm) {
  SimDescription description = two_levels();
  description.caches[1].partitions = 2;
  description.caches[1].far_latency_extra = 100;
  MemorySystem memory(description);
  // Line 1 lies in partition 1 and line 2 in partition 0 (see the hash test above).
  for (std::uint32_t sm : {0u, 1u, 2u, 3u}) {
    memory.start_chase(sm, 1);
    const Route cg = memory.route(LoadPath::cg, 0);
    memory.load_latency(cg, 128);
    memory.load_latency(cg, 256);
    const bool sm_near_partition_0 = sm % 2 == 0;
    EXPECT_EQ(memory.load_latency(cg, 256), sm_near_partition_0 ? 200u : 300u) << "SM " << sm;
    EXPECT_EQ(memory.load_latency(cg, 128), sm_near_partition_0 ? 300u : 200u) << "SM " << sm;
  }
}

// far_miss_latency_extra: a load that misses every cache comes from memory through the line's
// home partition, slower when that is far; hits are untouched, and under copy_on_read (a chase's
// own lines near) the home still decides for misses.
TEST(MemorySystem, MissesThroughAFarHomePartitionAddTheirExtra) {
  for (const PartitionPolicy policy : {PartitionPolicy::home, PartitionPolicy::copy_on_read}) {
    SimDescription description = two_levels();
    description.caches[1].partitions = 2;
    description.caches[1].far_miss_latency_extra = 70;
    description.caches[1].partition_policy = policy;
    MemorySystem memory(description);
    memory.start_chase(0, 1);  // SM 0: near partition 0; line 1 (128) far, line 2 (256) near
    const Route cg = memory.route(LoadPath::cg, 0);
    EXPECT_EQ(memory.load_latency(cg, 128), kDram + 70);
    EXPECT_EQ(memory.load_latency(cg, 256), kDram);
    EXPECT_EQ(memory.load_latency(cg, 128), 200u) << "a hit pays no miss extra";
  }
}

TEST(MemorySystem, SplitInstancesServeWarpsModuloTheirCount) {
  SimDescription description = two_levels();
  description.caches[0].instances_per_sm = 2;
  description.caches[0].paths = {LoadPath::nc};
  description.caches[1].paths = {LoadPath::ca};
  MemorySystem memory(description);
  memory.start_chase(0, 1);
  const Route warp0 = memory.route(LoadPath::nc, 0);
  const Route warp1 = memory.route(LoadPath::nc, 1);
  const Route warp2 = memory.route(LoadPath::nc, 2);
  EXPECT_EQ(memory.load_latency(warp0, 0), kDram);
  EXPECT_EQ(memory.load_latency(warp1, 0), kDram);  // its own, cold instance
  EXPECT_EQ(memory.load_latency(warp2, 0), 30u);    // shares warp 0's instance
  EXPECT_EQ(memory.load_latency(warp1, 0), 30u);
}

TEST(MemorySystem, TlbMissesAddToTheCacheLatency) {
  SimDescription description = two_levels();
  description.tlbs.push_back(TlbDescription{"L1 TLB", 2, {0, {}}, 1 << 21, 40});
  MemorySystem memory(description);
  memory.start_chase(0, 1);
  const Route ca = memory.route(LoadPath::ca, 0);
  EXPECT_EQ(memory.load_latency(ca, 0), kDram + 40);
  EXPECT_EQ(memory.load_latency(ca, 0), 30u);
  EXPECT_EQ(memory.load_latency(ca, 1 << 21), kDram + 40);
  EXPECT_EQ(memory.load_latency(ca, 2 << 21), kDram + 40);
  EXPECT_EQ(memory.load_latency(ca, 0), 30u + 40);  // page 0 left the 2-entry TLB, line stayed
  const Route shared = memory.route(LoadPath::shared, 0);
  EXPECT_EQ(memory.load_latency(shared, 3 << 21), 24u);  // shared memory is not translated
}

}  // namespace
}  // namespace memtopo::sim
