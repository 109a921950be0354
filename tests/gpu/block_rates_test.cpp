// A launch's rate from its blocks' own spans (backend/cuda/block_rates.hpp), on known values.
#include <gtest/gtest.h>

#include <vector>

#include "backend/cuda/block_rates.hpp"

namespace memtopo {
namespace {

TEST(SummedBlockRate, IsTheSumOfEveryBlocksOwnRate) {
  // 1 MB in 1 ms and in 2 ms: 1e9 + 0.5e9 bytes per second.
  const std::vector<unsigned long long> ns{1'000'000, 2'000'000};
  EXPECT_DOUBLE_EQ(summed_block_rate(ns, 1e6), 1.5e9);
}

TEST(SummedBlockRate, TheLaunchsStartAndEndDoNotCount) {
  // 132 blocks of 1 ms each, however late the launch began or its events ended: 132 x 1 GB/s.
  const std::vector<unsigned long long> ns(132, 1'000'000);
  EXPECT_DOUBLE_EQ(summed_block_rate(ns, 1e6), 132e9);
}

TEST(SummedBlockRate, BlocksWithoutASpanCountNothing) {
  EXPECT_DOUBLE_EQ(summed_block_rate(std::vector<unsigned long long>{0, 500}, 1000), 2e9);
  EXPECT_DOUBLE_EQ(summed_block_rate(std::vector<unsigned long long>{}, 1000), 0);
}

}  // namespace
}  // namespace memtopo
