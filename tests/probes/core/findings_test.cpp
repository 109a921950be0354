// The lookup of earlier findings and the chase builder that every probe uses.
#include <gtest/gtest.h>

#include "probes/core/chase_builder.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

Topology with(Property p) {
  Topology t;
  t.element("l1", "cache", "sm").set(std::move(p));
  return t;
}

Property size_of(nlohmann::json value) {
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.value = std::move(value);
  return p;
}

TEST(Findings, AConclusiveMeasuredOrDerivedNumberIsUsable) {
  EXPECT_EQ(finding_count(with(size_of(32768)), "l1", "size"), 32768u);
  Property derived = size_of(4096);
  derived.source = Source::derived;
  EXPECT_EQ(finding_value(with(derived), "l1", "size"), 4096.0);
}

TEST(Findings, ApiFactsBoundsInconclusiveAndNonNumbersAreNot) {
  Property api = size_of(1024);
  api.source = Source::api;
  EXPECT_FALSE(finding_value(with(api), "l1", "size"));
  Property bound = size_of(1024);
  bound.bound = Bound::lower;
  EXPECT_FALSE(finding_value(with(bound), "l1", "size"));
  Property unsure = size_of(1024);
  unsure.inconclusive = true;
  EXPECT_FALSE(finding_value(with(unsure), "l1", "size"));
  EXPECT_FALSE(finding_value(with(size_of(nullptr)), "l1", "size"));
  EXPECT_FALSE(finding_value(with(size_of("lru")), "l1", "size"));
  EXPECT_FALSE(finding_count(with(size_of(0)), "l1", "size"));
  EXPECT_FALSE(finding_value(with(size_of(1)), "l2", "size"));
  EXPECT_NE(any_finding(with(unsure), "l1", "size"), nullptr);
  EXPECT_EQ(any_finding(with(unsure), "l1", "line"), nullptr);
}

TEST(Findings, SetConfidenceWritesTheValueAndItsFactors) {
  Property p = size_of(1024);
  p.evidence = {{"edge_bytes", 1024}};
  set_confidence(p, Confidence{agreement(1, 1, "stride"), share(0.5, "")});
  ASSERT_TRUE(p.confidence);
  EXPECT_NEAR(*p.confidence, 1.0 / 3.0, 1e-12);
  EXPECT_EQ(p.evidence["edge_bytes"], 1024);
  ASSERT_EQ(p.evidence["confidence_factors"].size(), 2u);
  EXPECT_EQ(p.evidence["confidence_factors"][1]["rule"], "share");
}

TEST(Findings, SetInconclusiveLeavesANullValueWithTheReasonAndNoConfidence) {
  Topology t;
  set_inconclusive(t, "tex", "count_per_sm", "concurrent chasers", "tex.size is inconclusive");
  const Property* p = any_finding(t, "tex", "count_per_sm");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->value.is_null());
  EXPECT_TRUE(p->inconclusive);
  EXPECT_FALSE(p->confidence);
  EXPECT_EQ(p->source, Source::measured);
  EXPECT_EQ(p->method, "concurrent chasers");
  EXPECT_EQ(p->note, "tex.size is inconclusive");
  EXPECT_EQ(conclusive_finding(t, "tex", "count_per_sm"), nullptr);
}

TEST(ChaseBuilder, SetsOnlyWhatItIsToldOnTopOfTheDefaults) {
  const ChaseSpec plain = make_chase(LoadPath::cg, 4096, 32);
  EXPECT_EQ(plain.path, LoadPath::cg);
  EXPECT_EQ(plain.footprint_bytes, 4096u);
  EXPECT_EQ(plain.stride_bytes, 32u);
  EXPECT_EQ(plain.order, ChaseOrder::sequential);
  EXPECT_EQ(plain.warm_passes, 1u);
  EXPECT_FALSE(plain.sm);

  const ChaseSpec spec = make_chase(LoadPath::ca, 1 << 20, 128)
                             .random(7)
                             .warm_passes(2)
                             .timed_loads(512)
                             .chasers(4, ChaserSchedule::concurrent)
                             .private_segments()
                             .on_sm(3)
                             .flush_device_caches()
                             .evicting({LoadPath::tex, 8192, 64, 2})
                             .reserving_shared(1024);
  EXPECT_EQ(spec.order, ChaseOrder::random_permutation);
  EXPECT_EQ(spec.seed, 7u);
  EXPECT_EQ(spec.warm_passes, 2u);
  EXPECT_EQ(spec.timed_loads, 512u);
  EXPECT_EQ(spec.chasers, 4u);
  EXPECT_EQ(spec.schedule, ChaserSchedule::concurrent);
  EXPECT_TRUE(spec.private_segments);
  EXPECT_EQ(spec.sm, 3u);
  EXPECT_TRUE(spec.flush_device_caches);
  ASSERT_TRUE(spec.eviction);
  EXPECT_EQ(spec.eviction->path, LoadPath::tex);
  EXPECT_EQ(spec.reserved_shared_bytes, 1024u);

  const ChaseSpec listed = make_chase(LoadPath::cg, 4096, 4).visiting({10, 3, 7});
  EXPECT_EQ(listed.order, ChaseOrder::explicit_indices);
  EXPECT_EQ(listed.start_index, 10u);
}

}  // namespace
}  // namespace memtopo
