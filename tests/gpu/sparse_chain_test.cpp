// Sparse chain uploads on a real GPU: the device writes exactly the array build_chain makes
// (off-chain words still kNotOnChain), every global path and eviction sweep follows a sparse
// chain, and a TLB-sized chase (a 2 MiB stride over gigabytes) runs in well under a second
// and gives its memory back.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "backend/chain.hpp"
#include "backend/cuda/chain_links.hpp"
#include "backend/cuda/chain_writer.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "gpu_fixture.hpp"
#include "trace_helpers.hpp"

namespace memtopo::testing {
namespace {

using SparseChains = GpuTest;

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;
constexpr std::uint32_t kLargePage = 2u << 20;
// Guard words around a chain written into a larger buffer: bytes of 0x5A.
constexpr unsigned char kGuardByte = 0x5A;
constexpr std::uint32_t kGuardWord = 0x5A5A5A5Au;
constexpr std::size_t kGuardWords = 1000;

ChaseSpec strided(LoadPath path, std::uint64_t footprint, std::uint32_t stride, ChaseOrder order) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = stride;
  spec.order = order;
  spec.seed = 17;
  spec.warm_passes = 1;
  // A whole pass and a little more: the wrap from the last element to the first is checked.
  spec.timed_loads = static_cast<std::uint32_t>(chain_length(spec) + 10);
  return spec;
}

// `count` distinct word indices spread over `words` words, in a scrambled order (a multiplier
// coprime to `count` permutes 0 .. count-1).
std::vector<std::uint32_t> scattered_indices(std::uint64_t words, std::uint32_t count) {
  std::vector<std::uint32_t> indices;
  const std::uint64_t spacing = words / count;
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t slot = k * 7919 % count;
    indices.push_back(static_cast<std::uint32_t>(slot * spacing + k % 13));
  }
  return indices;
}

ChaseSpec explicit_chain(LoadPath path, std::uint64_t footprint, std::uint32_t count) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.order = ChaseOrder::explicit_indices;
  spec.indices = scattered_indices(footprint / 4, count);
  spec.start_index = spec.indices[count / 2];
  spec.warm_passes = 1;
  spec.timed_loads = count + 10;
  return spec;
}

std::string describe_sparse(const ChaseSpec& spec) {
  return std::string(to_string(spec.path)) + "/" + std::string(to_string(spec.order)) + " over " +
         std::to_string(spec.footprint_bytes) + " bytes, " + std::to_string(spec.chasers) +
         " chaser(s)";
}

// Expects equal word vectors, naming the first difference only (they hold millions of words).
void expect_same_words(const std::vector<std::uint32_t>& actual,
                       const std::vector<std::uint32_t>& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  const auto [a, e] = std::mismatch(actual.begin(), actual.end(), expected.begin());
  if (a != actual.end()) {
    ADD_FAILURE() << what << ": word " << (a - actual.begin()) << " is " << *a << ", expected "
                  << *e;
  }
}

// Writes `spec`'s array into the middle of a larger buffer of guard words with write_chain and
// reads the whole buffer back: the array must be build_chain(spec) word for word, and no word
// outside it may have changed.
void expect_written_exactly(const ChaseSpec& spec, std::size_t chunk_links) {
  const std::size_t words = spec.footprint_bytes / 4;
  DeviceBuffer<std::uint32_t> buffer(kGuardWords + words + kGuardWords);
  buffer.fill_bytes_async(kGuardByte, 0, buffer.size());
  DeviceBuffer<ChainLink> scratch;
  write_chain(spec, buffer, kGuardWords, scratch, chunk_links);
  std::vector<std::uint32_t> back(buffer.size());
  buffer.download(back);  // on the default stream: after the fill and every scatter
  CUDA_CALL(cudaDeviceSynchronize());

  const std::string what = describe_sparse(spec) + ", chunks of " + std::to_string(chunk_links);
  const std::vector<std::uint32_t> guard(kGuardWords, kGuardWord);
  expect_same_words({back.begin(), back.begin() + kGuardWords}, guard, what + ", guard before");
  expect_same_words({back.end() - kGuardWords, back.end()}, guard, what + ", guard after");
  expect_same_words({back.begin() + kGuardWords, back.end() - kGuardWords}, build_chain(spec),
                    what + ", array");
}

void expect_sparse_visits(const ChaseSpec& spec, const Trace& trace) {
  ASSERT_EQ(trace.indices.size(), std::size_t{spec.chasers} * spec.timed_loads)
      << describe_sparse(spec);
  for (std::uint32_t chaser = 0; chaser < spec.chasers; ++chaser) {
    expect_same_words(chaser_slice(trace.indices, spec, chaser), expected_visits(spec, chaser),
                      describe_sparse(spec) + ", chaser " + std::to_string(chaser));
  }
}

std::uint64_t free_device_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

// Runs `batch`, printing and returning the wall time of the run() call.
std::vector<Trace> timed_run(Backend& backend, const std::vector<ChaseSpec>& batch,
                             const std::string& what, double& seconds) {
  const auto begin = std::chrono::steady_clock::now();
  std::vector<Trace> traces = backend.run(batch);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::cout << what << ": run() took " << seconds * 1e3 << " ms\n";
  return traces;
}

TEST_F(SparseChains, TheDeviceWritesExactlyTheArrayTheHostWouldBuild) {
  ChaseSpec segments = strided(LoadPath::ca, 16 * kMiB + 300, 192, ChaseOrder::random_permutation);
  segments.chasers = 3;
  segments.private_segments = true;
  const std::vector<ChaseSpec> sparse = {
      strided(LoadPath::ca, 16 * kMiB, 4096, ChaseOrder::random_permutation),
      strided(LoadPath::tex, 16 * kMiB, 64, ChaseOrder::sequential),  // the 1-in-16 boundary
      explicit_chain(LoadPath::nc, 16 * kMiB, 3000),
      segments,
  };
  for (const ChaseSpec& spec : sparse) {
    ASSERT_TRUE(upload_sparse(spec)) << describe_sparse(spec);
    // Several chunks, the last one partial, then the whole chain in one.
    expect_written_exactly(spec, 333);
    expect_written_exactly(spec, kScatterChunkLinks);
  }
  // 1.5 M links: two chunks of the default size.
  const ChaseSpec many_links = strided(LoadPath::cg, 96 * kMiB, 64, ChaseOrder::random_permutation);
  ASSERT_TRUE(upload_sparse(many_links));
  ASSERT_GT(on_chain_words(many_links), kScatterChunkLinks);
  expect_written_exactly(many_links, kScatterChunkLinks);
  // The dense path through the same function.
  const ChaseSpec dense = strided(LoadPath::ca, 1 * kMiB, 16, ChaseOrder::random_permutation);
  ASSERT_FALSE(upload_sparse(dense));
  expect_written_exactly(dense, kScatterChunkLinks);
}

TEST_F(SparseChains, EveryGlobalPathAndSweepFollowsASparseChain) {
  std::vector<ChaseSpec> batch;
  for (const LoadPath path :
       {LoadPath::ca, LoadPath::cg, LoadPath::cv, LoadPath::nc, LoadPath::tex}) {
    // 256 MiB: within the 1D linear texture width of any Hopper part (2^27 words or more).
    batch.push_back(strided(path, 256 * kMiB, 64 * 1024, ChaseOrder::random_permutation));
    batch.push_back(explicit_chain(path, 256 * kMiB, 2000));
  }
  ChaseSpec segments = strided(LoadPath::ca, 256 * kMiB, 64 * 1024, ChaseOrder::random_permutation);
  segments.chasers = 4;
  segments.private_segments = true;
  segments.schedule = ChaserSchedule::concurrent;
  segments.timed_loads = static_cast<std::uint32_t>(chain_length(segments) + 10);
  batch.push_back(segments);
  for (const LoadPath sweep : {LoadPath::ca, LoadPath::nc, LoadPath::tex}) {
    ChaseSpec swept = strided(LoadPath::cg, 64 * kMiB, 1 * kMiB, ChaseOrder::random_permutation);
    swept.eviction = EvictionSweep{sweep, 256 * kMiB, 64 * 1024, 2};
    batch.push_back(swept);
  }
  for (const ChaseSpec& spec : batch) {
    ASSERT_TRUE(upload_sparse(spec)) << describe_sparse(spec);
    if (spec.eviction) {
      ASSERT_TRUE(upload_sparse(eviction_chain_spec(spec))) << describe_sparse(spec);
    }
  }
  // A sweep that left its chain would make run() throw (kChaseSweepLeftChain).
  const std::vector<Trace> traces = backend().run(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) expect_sparse_visits(batch[i], traces[i]);
}

TEST_F(SparseChains, ATwoMiBStrideOverGigabytesRunsQuicklyAndGivesItsMemoryBack) {
  const BackendLimits limits = backend().limits();
  const std::uint64_t footprint =
      std::min<std::uint64_t>(8 * kGiB, limits.max_footprint_bytes / kLargePage * kLargePage);
  if (footprint < 1 * kGiB) {
    GTEST_SKIP() << "only " << limits.max_footprint_bytes << " bytes of device memory free";
  }
  std::vector<ChaseSpec> specs = {
      strided(LoadPath::ca, footprint, kLargePage, ChaseOrder::sequential),
      strided(LoadPath::cg, footprint, kLargePage, ChaseOrder::random_permutation),
      explicit_chain(LoadPath::nc, footprint, 3000),
  };
  for (const ChaseSpec& spec : specs) {
    ASSERT_TRUE(upload_sparse(spec)) << describe_sparse(spec);
    const std::uint64_t free_before = free_device_bytes();
    double seconds = 0;
    const std::vector<Trace> traces = timed_run(backend(), {spec}, describe_sparse(spec), seconds);
    // The dense path took seconds here: a footprint-sized array built on the host and copied.
    EXPECT_LT(seconds, 2.0) << describe_sparse(spec);
    expect_sparse_visits(spec, traces[0]);
    // The array (over 1 GiB) is freed after the run; only small buffers may have grown.
    EXPECT_GE(free_device_bytes() + 64 * kMiB, free_before) << describe_sparse(spec);
  }
}

TEST_F(SparseChains, HugeChasesBeyondTheDeviceMemoryRunInSeveralLaunches) {
  const BackendLimits limits = backend().limits();
  const std::uint64_t footprint = limits.max_footprint_bytes / kLargePage * kLargePage;
  if (footprint < 1 * kGiB) {
    GTEST_SKIP() << "only " << limits.max_footprint_bytes << " bytes of device memory free";
  }
  // Together more than the free memory: one launch could not hold them all.
  const std::uint64_t count = free_device_bytes() / footprint + 1;
  if (count > 12) GTEST_SKIP() << count << " chases of " << footprint << " bytes: too slow";
  std::vector<ChaseSpec> batch(
      count, strided(LoadPath::cg, footprint, kLargePage, ChaseOrder::random_permutation));
  for (std::size_t i = 0; i < batch.size(); ++i) {
    batch[i].seed = i;
    batch[i].timed_loads = 64;
  }
  double seconds = 0;
  const std::vector<Trace> traces = timed_run(
      backend(), batch,
      std::to_string(count) + " chases of " + std::to_string(footprint) + " bytes", seconds);
  for (std::size_t i = 0; i < batch.size(); ++i) expect_sparse_visits(batch[i], traces[i]);
}

}  // namespace
}  // namespace memtopo::testing
