#include <gtest/gtest.h>

#include <vector>

#include "backend/sim/shared_banks.hpp"

namespace memtopo::sim {
namespace {

// The byte addresses of a full warp whose lane k reads byte k * stride_bytes.
std::vector<std::uint64_t> warp_at_stride(std::uint64_t stride_bytes) {
  std::vector<std::uint64_t> addresses;
  for (std::uint64_t lane = 0; lane < 32; ++lane) addresses.push_back(lane * stride_bytes);
  return addresses;
}

TEST(SharedBanks, FourByteBanksSerialiseByTheWordStride) {
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(4), 32, 4), 1u);
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(8), 32, 4), 2u);
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(16), 32, 4), 4u);
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(12), 32, 4), 1u);  // odd word stride
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(128), 32, 4), 32u);
}

TEST(SharedBanks, TheSameWordIsBroadcast) {
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(0), 32, 4), 1u);
  EXPECT_EQ(bank_conflict_degree(std::vector<std::uint64_t>{0, 1, 2, 3}, 32, 4),
            1u);  // bytes of one word
  // Two lanes on word 0 and one on word 32 (same bank): two distinct words, two passes.
  EXPECT_EQ(bank_conflict_degree(std::vector<std::uint64_t>{0, 0, 128}, 32, 4), 2u);
}

TEST(SharedBanks, EightByteBanksServeTwoAdjacentWordsInOnePass) {
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(4), 32, 8), 1u);  // pairs of lanes share a word
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(8), 32, 8), 1u);
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(64), 32, 8), 8u);  // banks 0, 8, 16, 24
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(256), 32, 8), 32u);
}

TEST(SharedBanks, NoActiveLaneNeedsNoPass) {
  EXPECT_EQ(bank_conflict_degree({}, 32, 4), 0u);
  EXPECT_EQ(bank_conflict_degree(std::vector<std::uint64_t>{4096}, 32, 4), 1u);
}

TEST(SharedBanks, FewerBanksWrapSooner) {
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(4), 16, 4), 2u);
}

// Loads wider than a bank occupy several banks: a warp of 8 B loads on 32 banks of 4 B needs
// two passes even without a conflict (256 B through 128 B per pass), as Hopper's LDS.64 does.
TEST(SharedBanks, WideLoadsOccupySeveralBanks) {
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(8), 8, 32, 4), 2u);
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(16), 8, 32, 4), 4u);  // banks 4k, 4k+1
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(24), 8, 32, 4), 2u);  // odd 8 B stride
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(256), 8, 32, 4), 32u);
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(16), 16, 32, 4), 4u);  // 512 B, 4 passes
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(8), 8, 32, 8), 1u);    // one bank each
  EXPECT_EQ(bank_conflict_degree(warp_at_stride(0), 8, 32, 4), 1u);    // broadcast
}

TEST(SharedBanks, LoadsNoWiderThanABankAreCountedByTheirAddress) {
  for (std::uint64_t stride : {0, 4, 8, 12, 64, 128}) {
    EXPECT_EQ(bank_conflict_degree(warp_at_stride(stride), 4, 32, 4),
              bank_conflict_degree(warp_at_stride(stride), 32, 4));
    EXPECT_EQ(bank_conflict_degree(warp_at_stride(stride), 4, 32, 8),
              bank_conflict_degree(warp_at_stride(stride), 32, 8));
  }
}

}  // namespace
}  // namespace memtopo::sim
