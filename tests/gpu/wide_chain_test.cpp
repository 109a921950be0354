// Wide chains (ChaseSpec::wide_indices: 64-bit elements, the TLB row's chains) on a real GPU: the
// device follows the chain the host asked for on ca and cg, also past 2^32 words (16 GiB), in
// well under a second, and keeps the arrays between chases that ask for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "backend/chain.hpp"
#include "gpu_fixture.hpp"

namespace memtopo::testing {
namespace {

using WideChains = GpuTest;

constexpr std::uint64_t kOneMiB = 1ull << 20;
constexpr std::uint64_t kOneGiB = 1ull << 30;
constexpr std::uint64_t kElements = 1000;
// Past 2^32 words: what 32-bit indices cannot address.
constexpr std::uint64_t kBeyondNarrowBytes = 20 * kOneGiB;

// `count` even word indices spread over the footprint (the last one near its end), scrambled.
std::vector<std::uint64_t> spread_indices(std::uint64_t footprint, std::uint64_t count) {
  const std::uint64_t spacing = footprint / 4 / count / 2 * 2;
  std::vector<std::uint64_t> indices;
  for (std::uint64_t k = 0; k < count; ++k)
    indices.push_back((k * 7919 % count) * spacing + 2 * (k % 13));
  return indices;
}

ChaseSpec wide_chase(LoadPath path, std::uint64_t footprint) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.order = ChaseOrder::explicit_indices;
  spec.wide_indices = spread_indices(footprint, kElements);
  spec.warm_passes = 1;
  spec.timed_loads = kElements + 10;  // the wrap from the last element to the first too
  return spec;
}

void expect_follows_chain(const ChaseSpec& spec, const Trace& trace, const std::string& what) {
  ASSERT_EQ(trace.wide_indices.size(), spec.timed_loads) << what;
  EXPECT_TRUE(trace.indices.empty()) << what;
  for (std::size_t k = 0; k < trace.wide_indices.size(); ++k) {
    ASSERT_EQ(trace.wide_indices[k], spec.wide_indices[k % spec.wide_indices.size()])
        << what << ", load " << k;
    EXPECT_GT(trace.cycles[k], 0u) << what << ", load " << k;
  }
}

TEST_F(WideChains, FollowTheChainOnCaAndCg) {
  for (const LoadPath path : {LoadPath::ca, LoadPath::cg}) {
    const ChaseSpec spec = wide_chase(path, 256 * kOneMiB);
    const std::vector<Trace> traces = backend().run(std::vector<ChaseSpec>{spec});
    expect_follows_chain(spec, traces.front(), std::string(to_string(path)));
  }
}

TEST_F(WideChains, ReachPastThirtyTwoBitWordIndicesAndKeepTheirArrays) {
  const BackendLimits limits = backend().limits();
  if (limits.max_wide_footprint_bytes < kBeyondNarrowBytes) {
    GTEST_SKIP() << "only " << limits.max_wide_footprint_bytes << " bytes of device memory free";
  }
  ChaseSpec spec = wide_chase(LoadPath::cg, kBeyondNarrowBytes);
  // The indices are scrambled: the largest, not the last, lies past 2^32 words.
  ASSERT_GT(*std::max_element(spec.wide_indices.begin(), spec.wide_indices.end()), UINT32_MAX);
  spec.keep_arrays = true;
  for (int run = 0; run < 2; ++run) {
    const auto begin = std::chrono::steady_clock::now();
    const std::vector<Trace> traces = backend().run(std::vector<ChaseSpec>{spec});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    std::cout << "wide chain over 20 GiB, run " << run << ": " << seconds * 1e3 << " ms\n";
    expect_follows_chain(spec, traces.front(), "20 GiB, run " + std::to_string(run));
    EXPECT_LT(seconds, 1.0);
    spec.keep_arrays = false;  // the second run may free them
  }
}

}  // namespace
}  // namespace memtopo::testing
