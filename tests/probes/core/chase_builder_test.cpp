// ChaseBuilder's placed chains: the same sequential chain further into a larger array.
#include <gtest/gtest.h>

#include <vector>

#include "probes/core/chase_builder.hpp"

namespace memtopo {
namespace {

TEST(ChaseBuilder, APlacedChainVisitsItsStridesFromTheOffsetInAddressOrder) {
  const ChaseSpec placed = make_chase(LoadPath::ca, 512, 128).placed_at(4096);
  EXPECT_EQ(placed.footprint_bytes, 4096u + 512u);
  EXPECT_EQ(placed.order, ChaseOrder::explicit_indices);
  EXPECT_EQ(placed.indices, (std::vector<std::uint32_t>{1024, 1056, 1088, 1120}));
  EXPECT_EQ(placed.start_index, 1024u);

  const ChaseSpec unplaced = make_chase(LoadPath::ca, 512, 128).placed_at(0);
  EXPECT_EQ(unplaced.footprint_bytes, 512u);
  EXPECT_EQ(unplaced.order, ChaseOrder::sequential);
  EXPECT_TRUE(unplaced.indices.empty());
}

}  // namespace
}  // namespace memtopo
