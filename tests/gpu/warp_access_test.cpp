// The warp-access kernel on a real GPU: every word size runs, every lane loads its own word
// (the recorded indices say so), records survive the flushes, conflicts cost time, and the
// bank probes find a plausible layout (16 or 32 banks of 4 or 8 B) that explains the sweep.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "gpu_fixture.hpp"
#include "probes/core/probe.hpp"

namespace memtopo::testing {
namespace {

using WarpAccess = GpuTest;

// Past the kernel's 64 records per flush, so that flushing is tested too.
constexpr std::uint32_t kTimed = 300;

WarpAccessSpec at_stride(std::uint32_t stride_words, std::uint32_t word_bytes,
                         std::uint32_t first_offset = 0) {
  WarpAccessSpec spec;
  for (std::uint32_t lane = 0; lane < kWarpLanes; ++lane) {
    spec.lane_offsets[lane] = first_offset + lane * stride_words * word_bytes;
  }
  spec.word_bytes = word_bytes;
  spec.timed_accesses = kTimed;
  return spec;
}

double median_corrected(const Trace& trace) {
  std::vector<double> cycles(trace.cycles.begin(), trace.cycles.end());
  std::sort(cycles.begin(), cycles.end());
  return cycles[cycles.size() / 2] - trace.overhead_cycles;
}

TEST_F(WarpAccess, EveryWordSizeLoadsTheWordsItWasGiven) {
  const BackendLimits limits = backend().limits();
  ASSERT_GT(limits.max_warp_access_bytes, 0u);
  const std::vector<WarpAccessSpec> batch = {at_stride(1, 4, 64), at_stride(3, 8, 256),
                                             at_stride(1, 16, 1024), at_stride(0, 8, 4096)};
  const std::vector<Trace> traces = backend().warp_access()->run_warp_access(batch);
  ASSERT_EQ(traces.size(), batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    SCOPED_TRACE("spec " + std::to_string(i));
    const Trace& trace = traces[i];
    ASSERT_EQ(trace.cycles.size(), kTimed);
    EXPECT_EQ(trace.indices, std::vector<std::uint32_t>(kTimed, batch[i].lane_offsets[0] / 4));
    EXPECT_EQ(trace.overhead_samples.size(), 32u);
    EXPECT_GT(trace.overhead_cycles, 0);
    EXPECT_GT(median_corrected(trace), 0) << "a shared load takes time beyond the timing";
    EXPECT_TRUE(limits.sm_ids.empty() ||
                std::binary_search(limits.sm_ids.begin(), limits.sm_ids.end(), trace.sm_id));
  }
}

// Every lane in one bank (a stride of 256 B covers every layout of rows up to 256 B) is served
// one lane at a time, each pass at least a cycle; a broadcast in one pass.
TEST_F(WarpAccess, ConflictsCostTimeBroadcastDoesNot) {
  const std::vector<WarpAccessSpec> batch = {at_stride(0, 4), at_stride(1, 4), at_stride(64, 4)};
  const std::vector<Trace> traces = backend().warp_access()->run_warp_access(batch);
  const double broadcast = median_corrected(traces[0]);
  const double stride1 = median_corrected(traces[1]);
  const double one_bank = median_corrected(traces[2]);
  std::cout << "[ warp access ] p50 cycles: broadcast " << broadcast << ", stride 1 word "
            << stride1 << ", all lanes 256 B apart " << one_bank << "\n";
  EXPECT_GE(one_bank, broadcast + kWarpLanes - 1);
  EXPECT_LT(stride1, one_bank);
}

TEST_F(WarpAccess, BadSpecsAreRefused) {
  WarpAccessSpec odd_word = at_stride(1, 4);
  odd_word.word_bytes = 2;
  WarpAccessSpec misaligned = at_stride(1, 8, 4);
  WarpAccessSpec untimed = at_stride(1, 4);
  untimed.timed_accesses = 0;
  WarpAccessSpec too_large = at_stride(1, 4);
  too_large.lane_offsets[31] = static_cast<std::uint32_t>(backend().limits().max_warp_access_bytes);
  for (const WarpAccessSpec& spec : {odd_word, misaligned, untimed, too_large}) {
    EXPECT_THROW(backend().warp_access()->run_warp_access(std::vector<WarpAccessSpec>{spec}), ExperimentError);
  }
}

// The whole family on the GPU: a conclusive, plausible layout that explains nearly every pattern,
// and a table of 32 degrees whose cost grows by at least a cycle a degree. The values are printed
// for the record.
TEST_F(WarpAccess, BankProbesFindALayoutThatExplainsTheSweep) {
  Topology topology;
  ProbeContext ctx{backend(), topology, [](const std::string&) {}, [] { return false; },
                   1,         nullptr};
  for (const auto& probe : all_probes()) {
    const std::string id = probe->id();
    if (id == "shared.banks" || id == "shared.bank_width" || id == "shared.conflict_latency") {
      probe->run(ctx);
    }
  }
  const Element* shared = topology.find("shared");
  ASSERT_NE(shared, nullptr);
  const Property* banks = shared->find("banks");
  const Property* width = shared->find("bank_width");
  const Property* conflicts = shared->find("conflict_latency");
  ASSERT_TRUE(banks && width && conflicts);
  std::cout << "[ banks ] " << banks->value << " banks of " << width->value << " B, confidence "
            << banks->confidence.value_or(-1) << "; per pass "
            << conflicts->evidence.value("per_pass_cycles", -1.0) << " cycles; "
            << banks->evidence.at("agreeing_patterns") << " of " << banks->evidence.at("patterns")
            << " patterns agree\n";
  ASSERT_FALSE(banks->inconclusive) << banks->note;
  ASSERT_FALSE(width->inconclusive) << width->note;
  EXPECT_GE(banks->evidence.at("agreeing_patterns").get<double>(),
            0.9 * banks->evidence.at("patterns").get<double>());
  // Plausible on any NVIDIA GPU since Kepler: 16 or 32 banks of 4 or 8 B (32 of 4 B since
  // Maxwell, H100 and H200 included), both sure.
  const auto bank_count = banks->value.get<std::uint32_t>();
  const auto bank_bytes = width->value.get<std::uint32_t>();
  EXPECT_TRUE(bank_count == 16 || bank_count == 32) << bank_count << " banks";
  EXPECT_TRUE(bank_bytes == 4 || bank_bytes == 8) << bank_bytes << " B wide";
  EXPECT_GE(banks->confidence.value_or(0), kLowConfidence);
  EXPECT_GE(width->confidence.value_or(0), kLowConfidence);
  ASSERT_FALSE(conflicts->inconclusive) << conflicts->note;
  ASSERT_EQ(conflicts->value.size(), 32u);
  // Every further pass costs at least a cycle, so degree 32 costs 31 more than degree 1.
  EXPECT_GE(conflicts->evidence.at("per_pass_cycles").get<double>(), 1.0);
  const double first = conflicts->value.front().at("cycles").get<double>();
  const double last = conflicts->value.back().at("cycles").get<double>();
  EXPECT_GE(last, first + kWarpLanes - 1);
  for (const auto& row : conflicts->value) {
    std::cout << "  degree " << row.at("degree") << ": " << row.at("cycles") << " cycles (p5 "
              << row.at("spread").at("p5") << ", p95 " << row.at("spread").at("p95") << ")\n";
  }
}

}  // namespace
}  // namespace memtopo::testing
