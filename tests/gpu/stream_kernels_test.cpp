// The stream kernels on a real GPU: every built combination runs, the bytes a launch moves are
// what its spec asks, the times and clocks are finite, an L1-resident window streams faster
// than DRAM, and configurations that would need a second wave are refused. Orderings only: no
// expected bandwidth of any GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include "gpu_fixture.hpp"

namespace memtopo::testing {
namespace {

using StreamKernelsOnGpu = GpuTest;

constexpr std::uint64_t kWindowBytes = 16 * 1024;  // inside any L1
// Long enough (tens of microseconds even from L1) for block 0 to time its loop with
// %globaltimer, which some GPUs advance in microsecond steps.
constexpr std::uint64_t kSmokeBytesPerLaunch = 1ull << 30;
constexpr std::uint64_t kTimedBytesPerLaunch = 2ull << 30;

StreamSpec stream(LoadPath path, StreamOp op, StreamPlacement placement, std::uint64_t footprint,
                  std::uint32_t vector_bytes, std::uint32_t unroll) {
  StreamSpec spec;
  spec.path = path;
  spec.op = op;
  spec.placement = placement;
  spec.footprint_bytes = footprint;
  spec.vector_bytes = vector_bytes;
  spec.unroll = unroll;
  spec.blocks_per_sm = 2;
  spec.threads_per_block = 256;
  spec.bytes_per_launch = kSmokeBytesPerLaunch;
  spec.timed_launches = 2;
  return spec;
}

void expect_sane(const StreamSpec& spec, const StreamResult& result, const DeviceFacts& facts) {
  const StreamGeometry geometry = stream_geometry(spec, facts.sm_count);
  EXPECT_EQ(result.bytes_moved, geometry.bytes_moved);
  EXPECT_GE(result.bytes_moved, spec.bytes_per_launch);
  EXPECT_EQ(result.footprint_bytes, geometry.footprint_bytes);
  EXPECT_EQ(result.sms, facts.sm_count);
  ASSERT_EQ(result.seconds.size(), spec.timed_launches);
  for (const double s : result.seconds) {
    EXPECT_TRUE(std::isfinite(s));
    EXPECT_GT(s, 0);
  }
  // Block 0 measured the SM clock: positive, and not above what the device says it reaches.
  EXPECT_GT(result.sm_clock_khz, 0);
  EXPECT_LT(result.sm_clock_khz, 1.1 * static_cast<double>(facts.sm_clock_khz));
}

TEST_F(StreamKernelsOnGpu, EveryBuiltCombinationRunsAndMovesWhatItsSpecAsks) {
  const DeviceFacts& facts = backend().facts();
  for (const std::uint32_t unroll : kStreamUnrolls) {
    for (const std::uint32_t vector : kStreamVectorBytes) {
      for (const LoadPath path :
           {LoadPath::ca, LoadPath::cg, LoadPath::nc, LoadPath::tex, LoadPath::shared}) {
        SCOPED_TRACE(std::string(to_string(path)) + " " + std::to_string(vector) + " B x" +
                     std::to_string(unroll));
        const StreamSpec spec =
            stream(path, StreamOp::read, StreamPlacement::per_block, kWindowBytes, vector, unroll);
        expect_sane(spec, backend().streams()->run_stream(spec), facts);
      }
    }
    for (const StreamOp op : {StreamOp::write, StreamOp::copy}) {
      for (const LoadPath path : {LoadPath::cg, LoadPath::shared}) {
        SCOPED_TRACE(std::string(to_string(op)) + " " + std::string(to_string(path)) + " x" +
                     std::to_string(unroll));
        const StreamSpec spec =
            stream(path, op, StreamPlacement::per_block, kWindowBytes, 16, unroll);
        expect_sane(spec, backend().streams()->run_stream(spec), facts);
      }
    }
  }
}

// A triad (b + 3 c to a, cg only) and a triad3 (b x d + c) run at every unroll, in both
// device-wide placements, and move three and four arrays' bytes per warp tile; over a footprint far beyond the L2 its rate is a DRAM rate,
// so it is no faster than a read of the same footprint and no slower than half of it.
TEST_F(StreamKernelsOnGpu, ATriadRunsAndMovesThreeArraysBytes) {
  const DeviceFacts& facts = backend().facts();
  const std::uint64_t footprint = std::max<std::uint64_t>(16 * facts.l2_bytes, 256ull << 20);
  for (const StreamOp op : {StreamOp::triad, StreamOp::triad3}) {
    for (const std::uint32_t unroll : kStreamUnrolls) {
      for (const StreamPlacement placement :
           {StreamPlacement::shared_by_all, StreamPlacement::one_pass}) {
        SCOPED_TRACE(std::string(to_string(op)) + " " + std::string(to_string(placement)) + " x" +
                     std::to_string(unroll));
        StreamSpec spec = stream(LoadPath::cg, op, placement, footprint, 16, unroll);
        const StreamResult result = backend().streams()->run_stream(spec);
        const StreamGeometry geometry = stream_geometry(spec, facts.sm_count);
        EXPECT_EQ(result.bytes_moved, geometry.iterations * geometry.warps * stream_arrays(op) *
                                          geometry.warp_tile_bytes);
        if (placement == StreamPlacement::shared_by_all) expect_sane(spec, result, facts);
      }
    }
  }
  StreamSpec triad =
      stream(LoadPath::cg, StreamOp::triad, StreamPlacement::shared_by_all, footprint, 16, 4);
  triad.bytes_per_launch = kTimedBytesPerLaunch;
  triad.timed_launches = 3;
  StreamSpec read = triad;
  read.op = StreamOp::read;
  const auto rate = [&](const StreamSpec& spec) {
    const StreamResult r = backend().streams()->run_stream(spec);
    return static_cast<double>(r.bytes_moved) / r.seconds.back();
  };
  StreamSpec triad3 = triad;
  triad3.op = StreamOp::triad3;
  const double triad_rate = rate(triad);
  const double triad3_rate = rate(triad3);
  const double read_rate = rate(read);
  std::cout << "triad " << triad_rate / 1e12 << " TB/s, triad3 " << triad3_rate / 1e12
            << " TB/s, read " << read_rate / 1e12 << " TB/s over " << footprint / (1 << 20)
            << " MiB per array\n";
  for (const double mix : {triad_rate, triad3_rate}) {
    EXPECT_GT(mix, 0.5 * read_rate);
    EXPECT_LT(mix, 1.1 * read_rate);
  }
  StreamSpec shared = triad;
  shared.path = LoadPath::shared;
  shared.placement = StreamPlacement::per_block;
  EXPECT_THROW(backend().streams()->run_stream(shared), ExperimentError);
}

TEST_F(StreamKernelsOnGpu, AnL1WindowStreamsFasterThanDram) {
  const DeviceFacts& facts = backend().facts();
  StreamSpec l1 =
      stream(LoadPath::ca, StreamOp::read, StreamPlacement::per_block, kWindowBytes, 16, 4);
  StreamSpec dram = stream(LoadPath::cg, StreamOp::read, StreamPlacement::shared_by_all,
                           8 * facts.l2_bytes, 16, 4);
  for (StreamSpec* spec : {&l1, &dram}) {
    spec->blocks_per_sm = 4;
    spec->bytes_per_launch = kTimedBytesPerLaunch;
    spec->timed_launches = 3;
  }
  const StreamResult fast = backend().streams()->run_stream(l1);
  const StreamResult slow = backend().streams()->run_stream(dram);
  expect_sane(l1, fast, facts);
  expect_sane(dram, slow, facts);
  const auto rate = [](const StreamResult& r) { return r.bytes_moved / r.seconds.front(); };
  EXPECT_GT(rate(fast), 2 * rate(slow)) << "L1 " << rate(fast) << " B/s, DRAM " << rate(slow);
}

// A read, a write, a copy and a texture read on arrays a footprint into their allocations: each
// runs, and a DRAM read there is about as fast as at the start (the same footprint, elsewhere).
TEST_F(StreamKernelsOnGpu, ArraysAtAnOffsetRunEveryOpAtTheSameRate) {
  const DeviceFacts& facts = backend().facts();
  const std::uint64_t footprint = 8 * facts.l2_bytes;
  const std::uint64_t offset = (footprint + kStreamArrayOffsetAlignment - 1) /
                               kStreamArrayOffsetAlignment * kStreamArrayOffsetAlignment;
  for (const auto& [path, op] :
       {std::pair{LoadPath::cg, StreamOp::read}, std::pair{LoadPath::cg, StreamOp::write},
        std::pair{LoadPath::cg, StreamOp::copy}, std::pair{LoadPath::tex, StreamOp::read}}) {
    StreamSpec spec = stream(path, op, StreamPlacement::shared_by_all, footprint, 16, 4);
    spec.array_offset_bytes = offset;
    expect_sane(spec, backend().streams()->run_stream(spec), facts);
  }
  StreamSpec here =
      stream(LoadPath::cg, StreamOp::read, StreamPlacement::shared_by_all, footprint, 16, 4);
  here.blocks_per_sm = 4;
  here.bytes_per_launch = kTimedBytesPerLaunch;
  here.timed_launches = 3;
  StreamSpec elsewhere = here;
  elsewhere.array_offset_bytes = offset;
  const auto rate = [&](const StreamSpec& spec) {
    const StreamResult r = backend().streams()->run_stream(spec);
    return r.bytes_moved / r.seconds.back();
  };
  const double at_start = rate(here);
  const double at_offset = rate(elsewhere);
  std::cout << "[ stream ] DRAM read " << at_start << " B/s at the start, " << at_offset
            << " B/s one footprint on\n";
  EXPECT_NEAR(at_offset, at_start, 0.1 * at_start);
}

TEST_F(StreamKernelsOnGpu, ConfigurationsThatNeedASecondWaveAreRefused) {
  StreamSpec crowded =
      stream(LoadPath::ca, StreamOp::read, StreamPlacement::per_block, kWindowBytes, 16, 4);
  crowded.blocks_per_sm = 64;
  crowded.threads_per_block = 1024;
  EXPECT_THROW(backend().streams()->run_stream(crowded), ExperimentError);
  StreamSpec too_much_shared = stream(LoadPath::shared, StreamOp::copy, StreamPlacement::per_block,
                                      backend().facts().shared_per_block_optin_bytes, 16, 4);
  EXPECT_THROW(backend().streams()->run_stream(too_much_shared), ExperimentError);
}

}  // namespace
}  // namespace memtopo::testing
