// l2.segments and l2.segment_size end to end on simulated devices whose concurrent chases share
// the device caches: an L2 in two segments (one SM fills half of it) and one without segments.
// Every expectation comes from the description file.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

// The probe and what it is planned from: l2.size (its stride is the measured l1.line).
const std::vector<std::string> kSegmentIds = {"l1.size", "l1.sector", "l1.line", "l2.size",
                                              "l2.segments"};

double number_of(const Property& p) {
  return p.value.get<double>();
}

int segments_of(const SimTruth& truth) {
  return truth.cache("L2").value("segments", 1);
}

// l2.size from one SM: one segment, within the refined bracket, which is a few lines at most.
void expect_one_sm_size(const ProbeRun& run, const SimTruth& truth) {
  const auto& l2 = truth.cache("L2");
  const double segment = l2.at("size_bytes").get<double>() / segments_of(truth);
  const double line = l2.at("line_bytes").get<double>();
  const Property& size = property(run, "l2", "size");
  ASSERT_TRUE(size.value.is_number()) << size.note;
  const double bracket = size.evidence.at("first_miss_bytes").get<double>() -
                         size.evidence.at("edge_bytes").get<double>();
  EXPECT_LE(number_of(size), segment);
  EXPECT_LT(segment, number_of(size) + bracket);
  EXPECT_LE(bracket, 4 * line);
  const Property& segment_size = property(run, "l2", "segment_size");
  EXPECT_EQ(segment_size.source, Source::derived);
  EXPECT_EQ(number_of(segment_size), number_of(size));
  EXPECT_NEAR(number_of(segment_size), segment, 4 * line);
  if (!segment_size.inconclusive) {  // as sure as the l2.size it is (the runner's factor)
    EXPECT_TRUE(own_factors(segment_size).empty()) << segment_size.evidence.dump();
    EXPECT_DOUBLE_EQ(*segment_size.confidence, *size.confidence);
  }
}

// A conclusive count is as sure as the agreement of its pairs: every pair's two chases agreed
// (a clear verdict), one more check per pair (Laplace: (pairs + 1) / (pairs + 2)); then no surer
// than the l2.size its chases were planned from (the runner's factor).
void expect_pairs_agreement(const Property& segments) {
  const double pairs = static_cast<double>(segments.evidence.at("pairs").size());
  ASSERT_GT(pairs, 0);
  EXPECT_DOUBLE_EQ(own_confidence(segments), (pairs + 1) / (pairs + 2));
  EXPECT_EQ(segments.evidence.at("confidence_factors")[0].at("rule"), "agreement");
}

// Every group of SMs the probe found is one segment: SM s fills segment s mod segments.
void expect_groups_follow_segments(const Property& segments, int truth_segments) {
  std::set<int> residues;
  for (const auto& group : segments.evidence.at("groups")) {
    std::set<int> group_residues;
    for (const auto& sm : group) group_residues.insert(sm.get<int>() % truth_segments);
    EXPECT_EQ(group_residues.size(), 1u) << group.dump();
    residues.insert(*group_residues.begin());
  }
  EXPECT_EQ(residues.size(), segments.evidence.at("groups").size());
}

TEST(L2Segments, TwoSegmentsOneSmFillsHalfTheL2) {
  const std::string path = "tests/probes/sims/l2-segments-2.json";
  const SimTruth truth = read_truth(path);
  ASSERT_EQ(segments_of(truth), 2);
  const ProbeRun run = run_on_sim(path, kSegmentIds);
  expect_one_sm_size(run, truth);
  const Property& segments = property(run, "l2", "segments");
  ASSERT_TRUE(segments.value.is_number()) << segments.note;
  EXPECT_EQ(segments.value.get<int>(), 2);
  EXPECT_FALSE(segments.inconclusive) << segments.note;
  EXPECT_GT(own_confidence(segments), 0.9);
  expect_pairs_agreement(segments);
  expect_groups_follow_segments(segments, 2);
  // Two segments of the one-SM size make up the whole L2.
  EXPECT_NEAR(segments.evidence.at("segments_x_size_over_api").get<double>(), 1.0, 0.01);
  // Every pair that opened a segment was measured twice, and both runs said separate.
  std::size_t separate = 0;
  for (const auto& pair : segments.evidence.at("pairs")) {
    if (pair.at("verdict") != "separate segments") continue;
    ++separate;
    ASSERT_TRUE(pair.contains("repeat_slow_share_a")) << pair.dump();
    EXPECT_LE(pair.at("repeat_slow_share_a").get<double>(), 0.1);
    EXPECT_LE(pair.at("repeat_slow_share_b").get<double>(), 0.1);
  }
  EXPECT_GT(separate, 0u);
  std::cout << "[ segments ] 2 segments: " << run.seconds << " s, " << run.loads << " loads\n";
}

TEST(L2Segments, NoSegmentsEverySmSharesTheWholeL2) {
  const std::string path = "tests/probes/sims/l2-segments-none.json";
  const SimTruth truth = read_truth(path);
  ASSERT_EQ(segments_of(truth), 1);
  const ProbeRun run = run_on_sim(path, kSegmentIds);
  expect_one_sm_size(run, truth);
  const Property& segments = property(run, "l2", "segments");
  ASSERT_TRUE(segments.value.is_number()) << segments.note;
  EXPECT_EQ(segments.value.get<int>(), 1);
  EXPECT_FALSE(segments.inconclusive) << segments.note;
  expect_pairs_agreement(segments);  // 7 pairs of 8 SMs: 8 / 9
  EXPECT_NE(segments.note.find("one segment"), std::string::npos) << segments.note;
  std::cout << "[ segments ] no segments: " << run.seconds << " s, " << run.loads << " loads\n";
}

// With the L2 partition map measured first, the pairs are planned from it.
const std::vector<std::string> kSegmentAndMapIds = {"l1.size",       "l1.sector",
                                                    "l1.line",       "l2.size",
                                                    "l2.partitions", "l2.partition_map",
                                                    "l2.segments"};

std::vector<int> sm_partitions_of(const SimTruth& truth) {
  return truth.cache("L2").at("sm_partitions").get<std::vector<int>>();
}

// Segments that are the partitions, on an SM map that is not SM id mod 2: the count comes from
// the map, every pair within a partition shares, every pair across is separate, and the
// confidence is the pairs' agreement with the map, no surer than the map (the runner's factor).
TEST(L2Segments, SegmentsThatAreThePartitionsComeFromTheMap) {
  const std::string path = "tests/probes/sims/l2-segments-partitions.json";
  const SimTruth truth = read_truth(path);
  ASSERT_EQ(segments_of(truth), 2);
  const std::vector<int> partition_of = sm_partitions_of(truth);
  const ProbeRun run = run_on_sim(path, kSegmentAndMapIds);
  const Property& map = property(run, "l2", "partition_map");
  ASSERT_FALSE(map.inconclusive) << map.note;
  const Property& segments = property(run, "l2", "segments");
  ASSERT_TRUE(segments.value.is_number()) << segments.note;
  EXPECT_EQ(segments.value.get<int>(), 2);
  EXPECT_FALSE(segments.inconclusive) << segments.note;
  EXPECT_NE(segments.method.find("l2.partition_map"), std::string::npos) << segments.method;
  const auto& check = segments.evidence.at("map_check");
  const auto& pairs = check.at("pairs");
  ASSERT_FALSE(pairs.empty());
  for (const auto& pair : pairs) {
    const bool within = partition_of[pair.at("sm_a").get<int>()] ==
                        partition_of[pair.at("sm_b").get<int>()];
    EXPECT_EQ(pair.at("verdict"), within ? "one segment" : "separate segments") << pair.dump();
    EXPECT_EQ(pair.at("within_partition"), within) << pair.dump();
    EXPECT_EQ(pair.at("judged"), "as the map predicts") << pair.dump();
  }
  EXPECT_EQ(check.at("contradicting"), 0);
  EXPECT_EQ(check.at("agreeing").get<std::size_t>(), pairs.size());
  // Every group is one truth partition.
  for (const auto& group : segments.evidence.at("groups")) {
    std::set<int> partitions;
    for (const auto& sm : group) partitions.insert(partition_of[sm.get<int>()]);
    EXPECT_EQ(partitions.size(), 1u) << group.dump();
  }
  const double n = static_cast<double>(pairs.size());
  EXPECT_DOUBLE_EQ(own_confidence(segments), (n + 1) / (n + 2));
  EXPECT_LE(*segments.confidence, *map.confidence);
  EXPECT_NEAR(segments.evidence.at("segments_x_size_over_api").get<double>(), 1.0, 0.01);
  expect_one_sm_size(run, truth);
}

// Partitions that only add latency (one L2 array every SM fills): pairs across partitions share,
// which contradicts the map, and the probe falls back to grouping SMs by their pairs.
TEST(L2Segments, PartitionsThatAreNotSegmentsFallBackToThePairs) {
  const std::string path = "tests/probes/sims/l2-partitions-not-segments.json";
  const SimTruth truth = read_truth(path);
  ASSERT_EQ(segments_of(truth), 1);
  const ProbeRun run = run_on_sim(path, kSegmentAndMapIds);
  ASSERT_FALSE(property(run, "l2", "partition_map").inconclusive);
  const Property& segments = property(run, "l2", "segments");
  ASSERT_TRUE(segments.value.is_number()) << segments.note;
  EXPECT_EQ(segments.value.get<int>(), 1);
  EXPECT_FALSE(segments.inconclusive) << segments.note;
  const auto& check = segments.evidence.at("map_check");
  EXPECT_GT(check.at("contradicting").get<int>(), 0);
  // The pairs across lose as much as the pairs within: both chases every line.
  for (const auto& pair : check.at("pairs")) {
    if (pair.at("within_partition").get<bool>()) continue;
    EXPECT_EQ(pair.at("judged"), "against the map") << pair.dump();
    EXPECT_GE(pair.at("total_loss").get<double>(), check.at("within_min_total_loss").get<double>());
  }
  EXPECT_NE(segments.note.find("contradicted l2.partition_map"), std::string::npos)
      << segments.note;
  expect_pairs_agreement(segments);
}

// A description whose specs run alone (the default) cannot show two SMs sharing anything: the
// probe says so instead of counting every SM as a segment.
TEST(L2Segments, SpecsThatRunAloneGiveOnlyALowerBound) {
  const std::string path = "tests/probes/sims/l2-segments-2-isolated.json";
  const SimTruth truth = read_truth(path);
  ASSERT_FALSE(truth.description.contains("batch_shares_device_caches"));
  const ProbeRun run = run_on_sim(path, kSegmentIds);
  const Property& segments = property(run, "l2", "segments");
  EXPECT_TRUE(segments.inconclusive);
  EXPECT_EQ(segments.bound, Bound::lower);
  EXPECT_NE(segments.note.find("do not share a device cache"), std::string::npos) << segments.note;
  EXPECT_FALSE(segments.confidence.has_value());  // a bound carries no confidence
  const Property& segment_size = property(run, "l2", "segment_size");
  EXPECT_TRUE(segment_size.inconclusive);
  EXPECT_FALSE(segment_size.confidence.has_value());
}

}  // namespace
}  // namespace memtopo::testing
