// SCRATCH (not committed): L2 capacity one SM sees at 128 B vs 256 B strides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "backend/chain.hpp"
#include "gpu_fixture.hpp"

namespace memtopo::testing {
namespace {
using Scratch = GpuTest;

TEST_F(Scratch, L2Granularity) {
  const auto limits = backend().limits();
  // Elements held at a given count, by stride: one-SM L2 holds about 185k 128 B lines.
  for (double share : {0.5, 0.75, 0.9, 1.1}) {
    for (std::uint32_t stride : {32u, 64u, 128u, 256u, 448u, 896u, 1792u, 3584u}) {
      const std::uint64_t n = static_cast<std::uint64_t>(share * 185000);
      ChaseSpec s;
      s.path = LoadPath::cg;
      s.footprint_bytes = n * stride;
      s.stride_bytes = stride;
      s.order = ChaseOrder::sequential;
      s.seed = 11;
      s.warm_passes = 1;
      s.sm = 0;
      s.timed_loads = static_cast<std::uint32_t>(std::min<std::uint64_t>(2 * n, limits.max_timed_loads));
      const auto t = backend().run(std::vector<ChaseSpec>{s}).front();
      std::vector<double> c;
      for (auto x : t.cycles) c.push_back(double(x) - t.overhead_cycles);
      std::size_t slow_acc = 0, mid = 0;
      for (double x : c) { slow_acc += x > 450; mid += x > 330 && x <= 450; }
      std::vector<double> sorted(c.begin(), c.end());
      std::sort(sorted.begin(), sorted.end());
      std::printf("SCRATCH n %6llu (%.2f) stride %4u footprint %7.1f MiB: slow>450 %.4f 330-450 %.4f p50 %.0f p95 %.0f p99 %.0f\n",
                  (unsigned long long)n, share, stride, n * stride / 1048576.0,
                  double(slow_acc) / c.size(), double(mid) / c.size(), sorted[sorted.size() / 2],
                  sorted[sorted.size() * 95 / 100], sorted[sorted.size() * 99 / 100]);
    }
  }
}

}  // namespace
}  // namespace memtopo::testing
