// The scan test (the policy without the ways): does a reused working set survive a stream that
// went through the cache? On simulated devices with LRU, LIP (scan-resistant) and a stream that
// did not fill the cache.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "backend/sim/sim_backend.hpp"
#include "geometry/geometry_support.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/probe.hpp"
#include "probes/geometry/scan_resistance.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

// The scan test of l1 on `file`, planned from `topology`.
std::optional<Property> l1_scan(const std::string& file, Topology& topology) {
  auto backend = make_sim_backend_from_file(source_path(file));
  ProbeContext ctx{*backend, topology, [](const std::string&) {}, [] { return false; }, 1, {}};
  return scan_resistance_policy(ctx, "l1", LoadPath::ca, LoadPath::cg);
}

// Without conclusive ways the policy still says what a scan shows: an LRU cache evicts a
// reused working set under a stream many times its size, so no class is claimed (and the
// eviction itself shows that the stream went through the cache: no check of the stream).
TEST(ScanResistance, AnLruCacheLosesItsWorkingSetToAStreamAndClaimsNoClass) {
  const std::string file = "tests/probes/sims/geometry-4way-lru.json";
  ProbeRun run = run_on_sim(file, {"l1.size"});
  const auto policy = l1_scan(file, run.topology);
  ASSERT_TRUE(policy.has_value());
  EXPECT_TRUE(policy->inconclusive) << policy->evidence.dump();
  EXPECT_TRUE(policy->value.is_null());
  EXPECT_FALSE(policy->confidence.has_value());
  EXPECT_GT(policy->evidence.at("after_stream").at("missing").get<int>(), 0);
  EXPECT_TRUE(policy->evidence.at("stream_check").is_string());
}

// LIP keeps the reused lines, and its stream went through the cache: the stream's own second
// pass missed on at least the lines a cache of its size cannot hold (LIP keeps the first lines
// a cold stream brought in, and misses the rest).
TEST(ScanResistance, AnLipCacheKeepsItsWorkingSetThroughAStream) {
  const std::string file = "tests/probes/sims/scan-resistant-lip.json";
  ProbeRun run = run_on_sim(file, {"l1.size"});
  const auto policy = l1_scan(file, run.topology);
  ASSERT_TRUE(policy.has_value());
  EXPECT_FALSE(policy->inconclusive) << policy->note << "\n" << policy->evidence.dump();
  EXPECT_EQ(policy->value, "scan_resistant");
  const auto& stream = policy->evidence.at("stream_check");
  EXPECT_GE(stream.at("misses").get<std::uint64_t>(),
            stream.at("forced_misses").get<std::uint64_t>())
      << stream.dump();
  EXPECT_GT(stream.at("forced_misses").get<std::uint64_t>(), 0u);
  // Both shares whole: every reused line survived, every forced miss showed.
  EXPECT_EQ(policy->evidence.at("confidence_factors").size(), 2u);
  EXPECT_GE(policy->confidence.value_or(0), 0.99);
}

// A size measured too small (1/16 of the cache, as a search that stopped early would give)
// plans a stream of half the cache: under LRU the working set survives it, which says nothing
// about the policy. The stream's own second pass hits, so no class is claimed, with that
// evidence (without the check this read "scan_resistant").
TEST(ScanResistance, AStreamSmallerThanTheCacheClaimsNoClass) {
  const std::string file = "tests/probes/sims/geometry-4way-lru.json";
  const auto l1 = read_truth(file).cache("L1");
  const auto cache_bytes = l1.at("size_bytes").get<std::uint64_t>();
  ProbeRun run = run_on_sim(file, {"l1.size"});
  Property size = property(run, "l1", "size");
  size.value = cache_bytes / 16;
  Property line;
  line.name = "line";
  line.unit = "bytes";
  line.source = Source::measured;
  line.value = l1.at("line_bytes").get<std::uint64_t>();
  element_for(run.topology, "l1").set(size);
  element_for(run.topology, "l1").set(line);

  const auto policy = l1_scan(file, run.topology);
  ASSERT_TRUE(policy.has_value());
  EXPECT_LT(policy->evidence.at("stream_bytes").get<std::uint64_t>(), cache_bytes);
  EXPECT_EQ(policy->evidence.at("after_stream").at("missing").get<int>(), 0)
      << "the working set survives a stream smaller than the LRU cache";
  EXPECT_TRUE(policy->inconclusive) << policy->evidence.dump();
  EXPECT_TRUE(policy->value.is_null());
  EXPECT_FALSE(policy->confidence.has_value());
  const auto& stream = policy->evidence.at("stream_check");
  EXPECT_EQ(stream.at("misses").get<std::uint64_t>(), 0u) << stream.dump();
  EXPECT_GT(stream.at("forced_misses").get<std::uint64_t>(), 0u);
  EXPECT_NE(policy->note.find("did not go through the cache"), std::string::npos) << policy->note;
}

// The scan test of a device-wide cache, alone and with the size's threshold: an LRU L2 loses
// its working set to the stream, so no class is claimed.
TEST(ScanResistance, AloneWithAGivenThresholdAnLruL2ClaimsNoClass) {
  const std::string file = "tests/probes/sims/geometry-l2-16way-lru.json";
  ProbeRun run = run_on_sim(file, {"l1.size", "l2.size"});
  const Element* l2 = run.topology.find("l2");
  ASSERT_TRUE(l2 && l2->find("size") && !l2->find("size")->inconclusive);
  const double threshold = l2->find("size")->evidence.at("threshold_cycles").get<double>();
  auto sim = make_sim_backend_from_file(source_path(file));
  BatchSizeWatcher backend(*sim);
  backend.watching = true;
  ProbeContext ctx{backend, run.topology, [](const std::string&) {}, [] { return false; }, 1, {}};
  const auto policy = scan_resistance_policy_alone(ctx, "l2", LoadPath::cg, threshold);
  ASSERT_TRUE(policy.has_value());
  EXPECT_EQ(backend.largest, 1u);
  EXPECT_TRUE(policy->inconclusive) << policy->evidence.dump();
  EXPECT_GT(policy->evidence.at("after_stream").at("missing").get<int>(), 0);
}

}  // namespace
}  // namespace memtopo::testing
