// dram.latency_tlb_miss from two cold chases: the second is the value, the first goes into the
// evidence and is named when it read otherwise (the H200's first cold chase of a process read
// every load about one DRAM access slower in 3 of 6 TLB-only processes).
#include "probes/tlb/dram_tlb_miss.hpp"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace memtopo::staircase {
namespace {

// A trace whose loads (overhead 10 cycles) cycle through `latencies`.
Trace cold_trace(const std::vector<std::uint32_t>& latencies, std::size_t loads = 4096) {
  Trace trace;
  trace.overhead_cycles = 10;
  trace.clock_khz = 1980000;
  for (std::size_t k = 0; k < loads; ++k)
    trace.cycles.push_back(latencies[k % latencies.size()] + 10);
  return trace;
}

ChaseSpec cold_spec() {
  ChaseSpec spec;
  spec.stride_bytes = 32u << 20;
  spec.footprint_bytes = std::uint64_t{4364} * spec.stride_bytes;
  return spec;
}

TEST(DramTlbMiss, TheSecondChaseIsTheValueAndASlowerFirstIsNamed) {
  const Trace first = cold_trace({1500, 1510, 1490, 1505});
  const Trace second = cold_trace({790, 795, 800, 796});
  const Property p = dram_latency_tlb_miss(second, first, cold_spec(), 4364, true);
  EXPECT_NEAR(p.value.get<double>(), 795.5, 1.0);
  ASSERT_TRUE(p.confidence.has_value());
  EXPECT_DOUBLE_EQ(*p.confidence, 1.0);
  const auto& conditioning = p.evidence.at("conditioning_chase");
  EXPECT_NEAR(conditioning.at("p50_cycles").get<double>(), 1502.5, 1.0);
  EXPECT_TRUE(conditioning.at("first_chase_differs").get<bool>());
  EXPECT_NE(p.method.find("second of two"), std::string::npos) << p.method;
}

TEST(DramTlbMiss, AFirstChaseWithinTheBandIsNotNamed) {
  const Trace first = cold_trace({770, 775, 780});
  const Trace second = cold_trace({790, 795, 800});
  const Property p = dram_latency_tlb_miss(second, first, cold_spec(), 4364, true);
  EXPECT_NEAR(p.value.get<double>(), 795.0, 1.0);
  EXPECT_FALSE(p.evidence.at("conditioning_chase").at("first_chase_differs").get<bool>());
}

// Near and far memory (as the H200's 614 / 804 cycles): the value, spread and confidence are the
// near mode's, both modes are the property's, and the mix keeps the whole chase's spread.
TEST(DramTlbMiss, TwoModesGiveTheNearModeWithItsOwnSpread) {
  std::vector<std::uint32_t> latencies;
  for (int k = 0; k < 8; ++k) latencies.push_back(k % 2 ? 800 + k : 610 + k);
  const Trace chase = cold_trace(latencies);
  const Property p = dram_latency_tlb_miss(chase, chase, cold_spec(), 4364, true);
  ASSERT_EQ(p.modes.size(), 2u);
  EXPECT_NEAR(p.value.get<double>(), 613, 2);
  EXPECT_NEAR(p.modes[1].value, 804, 2);
  EXPECT_NEAR(p.modes[1].share, 0.5, 1e-9);
  ASSERT_TRUE(p.spread && p.mix);
  EXPECT_LT(p.spread->p95, 620) << "the spread describes the near loads, as the value does";
  EXPECT_GT(p.mix->p95, 800);
  EXPECT_EQ(p.confidence, p.modes[0].confidence);
  EXPECT_EQ(p.evidence.at("confidence_factors")[0].at("rule"), "mode_separation");
  EXPECT_NE(p.note.find("near mode"), std::string::npos) << p.note;
}

TEST(DramTlbMiss, NoTlbLevelBelowTheFootprintIsInconclusive) {
  const Trace chase = cold_trace({600, 610});
  const Property p = dram_latency_tlb_miss(chase, chase, cold_spec(), 4364, false);
  EXPECT_TRUE(p.inconclusive);
  EXPECT_FALSE(p.confidence.has_value());
  EXPECT_NE(p.note.find("may have hit the TLB"), std::string::npos) << p.note;
}

}  // namespace
}  // namespace memtopo::staircase
