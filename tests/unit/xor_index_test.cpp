// GF(2) algebra of hashed set indices: reduced bases, spans, the annihilator of a kernel.
#include "analysis/xor_index.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace memtopo {
namespace {

std::uint64_t bits(std::initializer_list<unsigned> list) {
  std::uint64_t m = 0;
  for (unsigned b : list) m |= std::uint64_t{1} << b;
  return m;
}

std::uint64_t set_of(const std::vector<std::uint64_t>& masks, std::uint64_t address) {
  std::uint64_t set = 0;
  for (std::size_t k = 0; k < masks.size(); ++k) {
    set |= std::uint64_t{xor_parity(masks[k], address)} << k;
  }
  return set;
}

TEST(XorIndex, ReducedBasisIsCanonical) {
  const std::vector<std::uint64_t> a = {bits({7, 12}), bits({8, 12}), bits({7, 8})};
  const std::vector<std::uint64_t> b = {bits({7, 8}), bits({7, 12}), 0};
  EXPECT_EQ(reduced_basis(a), reduced_basis(b));
  EXPECT_EQ(reduced_basis(a), (std::vector<std::uint64_t>{bits({7, 12}), bits({8, 12})}));
  EXPECT_TRUE(same_span(a, b));
  EXPECT_FALSE(same_span(a, std::vector<std::uint64_t>{bits({7, 12})}));
  EXPECT_TRUE(in_span(a, bits({7, 8})));
  EXPECT_FALSE(in_span(a, bits({7})));
  EXPECT_TRUE(in_span(a, 0));
}

TEST(XorIndex, MaskBitsListEachMasksBitsAscending) {
  const std::vector<std::uint64_t> masks = {bits({17, 7, 12}), bits({8})};
  EXPECT_EQ(mask_bits(masks), (std::vector<std::vector<std::uint32_t>>{{7, 12, 17}, {8}}));
}

// The annihilator of the kernel of a hash recovers the hash's masks up to their span, whatever
// kernel basis it is given; a bit-selected index comes back as single bits.
TEST(XorIndex, AnnihilatorOfTheKernelIsTheSpanOfTheMasks) {
  const std::vector<std::uint64_t> masks = {bits({7, 12, 17}), bits({8, 13, 18}), bits({9, 14}),
                                            bits({10, 15, 17})};
  const std::uint64_t coordinates = bits({7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18});
  // Every pair of addresses (within the coordinates) with the same set gives a kernel vector.
  std::vector<std::uint64_t> kernel;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 4000; ++i) {
    const std::uint64_t a = rng() & coordinates, b = rng() & coordinates;
    if (set_of(masks, a) == set_of(masks, b)) kernel.push_back(a ^ b);
  }
  const auto found = annihilator(kernel, coordinates);
  EXPECT_EQ(found.size(), masks.size());
  EXPECT_TRUE(same_span(found, masks));
  for (std::uint64_t v : kernel) {
    for (std::uint64_t m : found) EXPECT_FALSE(xor_parity(m, v));
  }
  // Masks whose lowest bits are distinct and appear in no other mask come back verbatim.
  EXPECT_EQ(found, reduced_basis(masks));

  // A bit selection (bits 7, 9): bits 8, 10.. never change the set.
  std::vector<std::uint64_t> selection_kernel;
  for (unsigned b : {8u, 10u, 11u, 12u, 13u, 14u, 15u, 16u, 17u, 18u})
    selection_kernel.push_back(std::uint64_t{1} << b);
  EXPECT_EQ(annihilator(selection_kernel, coordinates),
            (std::vector<std::uint64_t>{bits({7}), bits({9})}));
}

TEST(XorIndex, AnEmptyKernelLeavesEveryCoordinateAMaskAndAFullOneNone) {
  const std::uint64_t coordinates = bits({7, 8, 9});
  EXPECT_EQ(annihilator({}, coordinates),
            (std::vector<std::uint64_t>{bits({7}), bits({8}), bits({9})}));
  const std::vector<std::uint64_t> all = {bits({7}), bits({8}), bits({9})};
  EXPECT_TRUE(annihilator(all, coordinates).empty());
}

TEST(XorIndex, KernelVectorsPairLinesOnlyWithinABlockOutsideTheCoordinates) {
  const std::uint64_t coordinates = (std::uint64_t{1} << 21) - 128;  // bits 7..20
  const std::uint64_t page = std::uint64_t{1} << 21;
  const std::vector<std::uint64_t> lines = {bits({7}), bits({8}), page | bits({9}),
                                            page | bits({7, 9}), bits({7})};
  EXPECT_EQ(kernel_vectors(lines, coordinates),
            (std::vector<std::uint64_t>{bits({7, 8}), bits({7})}));
}

}  // namespace
}  // namespace memtopo
