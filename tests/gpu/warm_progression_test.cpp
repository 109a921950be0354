// Which chases warm without following their chain (backend/cuda/warm_progression.hpp; host
// logic, no GPU needed): the progression must name exactly the words the chain visits, in its
// order, or nothing.
#include "backend/cuda/warm_progression.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/chain.hpp"

namespace memtopo {
namespace {

ChaseSpec sequential(std::uint64_t footprint, std::uint32_t stride, LoadPath path = LoadPath::cg) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = stride;
  spec.timed_loads = 64;
  spec.stream_warm = true;
  return spec;
}

ChaseSpec explicit_chain(std::vector<std::uint32_t> words, std::uint64_t footprint) {
  ChaseSpec spec = sequential(footprint, 4);
  spec.order = ChaseOrder::explicit_indices;
  spec.start_index = words.front();
  spec.indices = std::move(words);
  return spec;
}

// The words the progression visits from its start position, one chain's length of them.
std::vector<std::uint32_t> visited(const WarmProgression& p) {
  std::vector<std::uint32_t> words;
  std::uint32_t position = p.start_position;
  for (std::uint32_t k = 0; k < p.elements; ++k) {
    words.push_back(p.first_word + position * p.step_words);
    position = position + 1 == p.elements ? 0 : position + 1;
  }
  return words;
}

TEST(WarmProgression, SequentialChainVisitsItsOrderFromTheStart) {
  ChaseSpec spec = sequential(1 << 20, 128);
  spec.start_index = 32 * 5;  // element 5
  const auto p = warm_progression(spec);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->step_words, 32u);
  EXPECT_EQ(p->elements, (1u << 20) / 128);
  EXPECT_EQ(p->start_position, 5u);
  std::vector<std::uint32_t> order = chain_order(spec);
  std::rotate(order.begin(), order.begin() + 5, order.end());
  EXPECT_EQ(visited(*p), order);
}

TEST(WarmProgression, EvenlySpacedExplicitWordsArePlacedFurtherIn) {
  // l2.size's placements: a sequential chain starting 1 MiB into its array.
  std::vector<std::uint32_t> words;
  for (std::uint32_t k = 0; k < 100; ++k) words.push_back((1u << 18) + 32 * k);
  const ChaseSpec spec = explicit_chain(words, 4 << 20);
  const auto p = warm_progression(spec);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first_word, 1u << 18);
  EXPECT_EQ(visited(*p), words);
}

TEST(WarmProgression, OtherChainsFollowTheirLinks) {
  ChaseSpec random = sequential(1 << 20, 128);
  random.order = ChaseOrder::random_permutation;
  EXPECT_FALSE(warm_progression(random));
  EXPECT_FALSE(warm_progression(explicit_chain({0, 32, 96, 128}, 1 << 20)));  // a gap differs
  EXPECT_FALSE(warm_progression(explicit_chain({64, 32, 0}, 1 << 20)));       // descending
  EXPECT_FALSE(warm_progression(sequential(1 << 20, 128, LoadPath::tex)));
  EXPECT_FALSE(warm_progression(sequential(1 << 20, 128, LoadPath::ca)));  // allocates in L1
  EXPECT_FALSE(warm_progression(sequential(1 << 20, 128, LoadPath::nc)));
  EXPECT_FALSE(warm_progression(sequential(4096, 128, LoadPath::constant)));
  ChaseSpec cold = sequential(1 << 20, 128);
  cold.warm_passes = 0;
  EXPECT_FALSE(warm_progression(cold));
  ChaseSpec chasers = sequential(1 << 20, 128);
  chasers.chasers = 4;
  EXPECT_FALSE(warm_progression(chasers));
  ChaseSpec not_asked = sequential(1 << 20, 128);
  not_asked.stream_warm = false;
  EXPECT_FALSE(warm_progression(not_asked));
}

}  // namespace
}  // namespace memtopo
