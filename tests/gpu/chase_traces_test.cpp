// The chase kernel on a real GPU: it follows exactly the chain the host built, on every load
// path and order, with several chasers, on the SMs it was asked for.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "backend/chain.hpp"
#include "gpu_fixture.hpp"
#include "trace_helpers.hpp"

namespace memtopo::testing {
namespace {

using ChaseTraces = GpuTest;

ChaseSpec small_spec(LoadPath path, ChaseOrder order) {
  ChaseSpec spec;
  spec.path = path;
  spec.order = order;
  spec.footprint_bytes = 8192;
  spec.stride_bytes = 64;
  spec.seed = 42;
  if (order == ChaseOrder::explicit_indices) spec.indices = {5, 1000, 17, 2047, 3, 640, 129};
  spec.start_index = order == ChaseOrder::explicit_indices ? 17 : 64;
  spec.warm_passes = 2;
  // Several times the chain, and past the 512-record shared buffer: the flushes are tested.
  spec.timed_loads = 1300;
  return spec;
}

std::string describe(const ChaseSpec& spec) {
  return std::string(to_string(spec.path)) + "/" + std::string(to_string(spec.order)) + "/" +
         std::to_string(spec.chasers) + " chaser(s), " +
         (spec.schedule == ChaserSchedule::concurrent ? "concurrent" : "sequential");
}

void expect_visits(const ChaseSpec& spec, const Trace& trace) {
  ASSERT_EQ(trace.indices.size(), std::size_t{spec.chasers} * spec.timed_loads) << describe(spec);
  ASSERT_EQ(trace.cycles.size(), trace.indices.size()) << describe(spec);
  const auto expected = expected_visits(spec);
  for (std::uint32_t chaser = 0; chaser < spec.chasers; ++chaser) {
    EXPECT_EQ(chaser_slice(trace.indices, spec, chaser), expected)
        << describe(spec) << ", chaser " << chaser;
  }
}

TEST_F(ChaseTraces, EveryPathAndOrderVisitsTheChainInOrder) {
  std::vector<ChaseSpec> batch;
  for (const LoadPath path : kAllLoadPaths) {
    for (const ChaseOrder order :
         {ChaseOrder::sequential, ChaseOrder::random_permutation, ChaseOrder::explicit_indices}) {
      batch.push_back(small_spec(path, order));
    }
  }
  const std::vector<Trace> traces = backend().run(batch);
  ASSERT_EQ(traces.size(), batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) expect_visits(batch[i], traces[i]);
}

TEST_F(ChaseTraces, SeveralChasersFollowTheChainInBothSchedules) {
  std::vector<ChaseSpec> batch;
  for (const LoadPath path : {LoadPath::ca, LoadPath::tex, LoadPath::constant, LoadPath::shared}) {
    for (const ChaserSchedule schedule : {ChaserSchedule::sequential, ChaserSchedule::concurrent}) {
      for (const std::uint32_t chasers : {2u, 4u, backend().limits().max_chasers}) {
        ChaseSpec spec = small_spec(path, ChaseOrder::random_permutation);
        spec.chasers = chasers;
        spec.schedule = schedule;
        spec.timed_loads = 300;  // concurrent: more than one chunk per chaser
        batch.push_back(spec);
      }
    }
  }
  const std::vector<Trace> traces = backend().run(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) expect_visits(batch[i], traces[i]);
}

TEST_F(ChaseTraces, ZeroWarmPassesAndZeroTimedLoadsAreFine) {
  ChaseSpec cold = small_spec(LoadPath::cg, ChaseOrder::sequential);
  cold.warm_passes = 0;
  ChaseSpec untimed = small_spec(LoadPath::cg, ChaseOrder::sequential);
  untimed.timed_loads = 0;
  const std::vector<Trace> traces = backend().run(std::vector{cold, untimed});
  expect_visits(cold, traces[0]);
  EXPECT_TRUE(traces[1].cycles.empty());
  EXPECT_TRUE(traces[1].indices.empty());
}

TEST_F(ChaseTraces, ABatchRunsOnDistinctSms) {
  const std::uint32_t slots = backend().limits().concurrent_slots;
  ASSERT_GT(slots, 0u);
  std::vector<ChaseSpec> batch(slots, small_spec(LoadPath::ca, ChaseOrder::sequential));
  for (auto& spec : batch) spec.timed_loads = 64;
  const std::vector<Trace> traces = backend().run(batch);
  std::set<std::uint32_t> sms;
  for (const Trace& trace : traces) sms.insert(trace.sm_id);
  EXPECT_EQ(sms.size(), batch.size())
      << "every spec of a batch of " << slots << " should run on its own SM";
  for (std::size_t i = 0; i < batch.size(); ++i) expect_visits(batch[i], traces[i]);
}

TEST_F(ChaseTraces, PinnedSmsAreHonoured) {
  // Learn real SM ids from an unpinned batch, then pin specs to some of them in reverse,
  // twice to the same SM (which needs two launches) and next to unpinned specs.
  const std::uint32_t slots = backend().limits().concurrent_slots;
  std::vector<ChaseSpec> probe(std::min(slots, 8u),
                               small_spec(LoadPath::cg, ChaseOrder::sequential));
  std::vector<std::uint32_t> sms;
  for (const Trace& trace : backend().run(probe)) sms.push_back(trace.sm_id);
  std::sort(sms.begin(), sms.end());

  std::vector<ChaseSpec> batch;
  for (auto it = sms.rbegin(); it != sms.rend(); ++it) {
    ChaseSpec spec = small_spec(LoadPath::cg, ChaseOrder::random_permutation);
    spec.sm = *it;
    batch.push_back(spec);
  }
  batch.push_back(batch.front());  // a second spec on the same SM
  batch.push_back(small_spec(LoadPath::cg, ChaseOrder::sequential));  // unpinned
  const std::vector<Trace> traces = backend().run(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].sm) {
      EXPECT_EQ(traces[i].sm_id, *batch[i].sm) << "spec " << i;
    }
    expect_visits(batch[i], traces[i]);
  }
}

TEST_F(ChaseTraces, SpecsThatCannotRunAreRejected) {
  const BackendLimits limits = backend().limits();
  const auto rejects = [&](ChaseSpec spec, const std::string& why) {
    EXPECT_THROW(backend().run(std::vector{spec}), ExperimentError) << why;
  };
  ChaseSpec constant = small_spec(LoadPath::constant, ChaseOrder::sequential);
  constant.footprint_bytes = limits.max_constant_footprint_bytes + 4096;
  rejects(constant, "constant footprint over the bank");
  ChaseSpec shared = small_spec(LoadPath::shared, ChaseOrder::sequential);
  shared.footprint_bytes = limits.max_shared_footprint_bytes + 4096;
  rejects(shared, "shared footprint over the limit");
  ChaseSpec chasers = small_spec(LoadPath::ca, ChaseOrder::sequential);
  chasers.chasers = limits.max_chasers + 1;
  rejects(chasers, "too many chasers");
  ChaseSpec sm = small_spec(LoadPath::ca, ChaseOrder::sequential);
  sm.sm = 1u << 20;
  rejects(sm, "no such SM");
  ChaseSpec stride = small_spec(LoadPath::ca, ChaseOrder::sequential);
  stride.stride_bytes = 6;
  rejects(stride, "invalid spec (validate)");
}

TEST_F(ChaseTraces, TheLargestConstantAndSharedFootprintsRun) {
  const BackendLimits limits = backend().limits();
  ChaseSpec constant = small_spec(LoadPath::constant, ChaseOrder::sequential);
  constant.footprint_bytes = limits.max_constant_footprint_bytes;
  constant.stride_bytes = 256;
  ChaseSpec shared = small_spec(LoadPath::shared, ChaseOrder::sequential);
  shared.footprint_bytes = limits.max_shared_footprint_bytes / 256 * 256;
  shared.stride_bytes = 256;
  const std::vector<Trace> traces = backend().run(std::vector{constant, shared});
  expect_visits(constant, traces[0]);
  expect_visits(shared, traces[1]);
}

}  // namespace
}  // namespace memtopo::testing
