// Which chase arrays go to the device sparsely, and the links a sparse upload scatters (host
// logic; no GPU needed).
#include "backend/cuda/chain_links.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backend/backend.hpp"
#include "backend/chain.hpp"

namespace memtopo {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;
// The largest footprint 32-bit word indices allow (just under 16 GiB).
constexpr std::uint64_t kLargestFootprint = 4ull * UINT32_MAX;

ChaseSpec strided(std::uint64_t footprint, std::uint32_t stride,
                  ChaseOrder order = ChaseOrder::sequential, LoadPath path = LoadPath::ca) {
  ChaseSpec spec;
  spec.path = path;
  spec.footprint_bytes = footprint;
  spec.stride_bytes = stride;
  spec.order = order;
  spec.seed = 99;
  return spec;
}

ChaseSpec explicit_chain(std::uint64_t footprint, std::vector<std::uint32_t> indices) {
  ChaseSpec spec;
  spec.footprint_bytes = footprint;
  spec.order = ChaseOrder::explicit_indices;
  spec.start_index = indices.front();
  spec.indices = std::move(indices);
  return spec;
}

ChaseSpec private_segments(std::uint64_t footprint, std::uint32_t stride, std::uint32_t chasers,
                           ChaseOrder order) {
  ChaseSpec spec = strided(footprint, stride, order);
  spec.chasers = chasers;
  spec.private_segments = true;
  return spec;
}

std::string describe(const ChaseSpec& spec) {
  return std::string(to_string(spec.order)) + " over " + std::to_string(spec.footprint_bytes) +
         " bytes, stride " + std::to_string(spec.stride_bytes) + ", " +
         std::to_string(spec.chasers) + " chaser(s)" +
         (spec.private_segments ? " in private segments" : "");
}

// What the device does on the sparse path, on the host: an array of kNotOnChain with the links
// scattered into it.
std::vector<std::uint32_t> scatter(const ChaseSpec& spec, const std::vector<ChainLink>& links) {
  std::vector<std::uint32_t> words(spec.footprint_bytes / 4, kNotOnChain);
  for (const ChainLink& link : links) words.at(link.index) = link.next;
  return words;
}

TEST(ChainUploadRule, StridesFrom64BytesGoUpSparsely) {
  for (const std::uint32_t stride : {4u, 8u, 16u, 32u}) {
    EXPECT_FALSE(upload_sparse(strided(64 * 1024, stride))) << stride << "-byte stride";
  }
  // 64 bytes: exactly one word in 16 on the chain, the boundary, sparse.
  for (const std::uint32_t stride : {64u, 128u, 4096u, 2u << 20}) {
    EXPECT_TRUE(upload_sparse(strided(64 * kMiB, stride))) << stride << "-byte stride";
  }
  EXPECT_EQ(on_chain_words(strided(64 * 1024, 64)) * kSparseWordsPerLink, 64u * 1024 / 4);
  EXPECT_TRUE(upload_sparse(strided(kLargestFootprint, 2u << 20)));
  EXPECT_TRUE(upload_sparse(strided(8 * kGiB, 2u << 20, ChaseOrder::random_permutation)));
}

TEST(ChainUploadRule, OnlyTheShareOfOnChainWordsCounts) {
  // A footprint that is not a multiple of the stride: 17 elements in 287 words (1148 bytes).
  EXPECT_TRUE(upload_sparse(strided(17 * 64 + 60, 64)));
  EXPECT_FALSE(upload_sparse(strided(17 * 60, 60)));
  // Explicit indices: 7 elements in 2048 words is sparse; 200 in 200 words is dense.
  EXPECT_TRUE(upload_sparse(explicit_chain(8192, {5, 1000, 17, 2047, 3, 640, 129})));
  std::vector<std::uint32_t> every_word(200);
  for (std::uint32_t k = 0; k < 200; ++k) every_word[k] = (k * 7) % 200;
  EXPECT_FALSE(upload_sparse(explicit_chain(800, every_word)));
}

TEST(ChainUploadRule, PrivateSegmentsCountEveryChasersChain) {
  // 16384 words, 4 segments of 256 elements each: 1024 on-chain words, one in 16.
  const ChaseSpec at_boundary = private_segments(64 * 1024, 64, 4, ChaseOrder::random_permutation);
  EXPECT_EQ(on_chain_words(at_boundary), 1024u);
  EXPECT_TRUE(upload_sparse(at_boundary));
  EXPECT_FALSE(upload_sparse(private_segments(64 * 1024, 32, 4, ChaseOrder::sequential)));
  // Without private segments the chasers share one chain: the chasers do not count.
  ChaseSpec shared_chain = strided(64 * 1024, 64);
  shared_chain.chasers = 4;
  EXPECT_EQ(on_chain_words(shared_chain), 1024u) << "one chain of 1024 elements";
}

TEST(ChainUploadRule, TheConstantAndSharedPathsStayDense) {
  for (const LoadPath path : {LoadPath::constant, LoadPath::shared}) {
    EXPECT_FALSE(upload_sparse(strided(64 * 1024, 4096, ChaseOrder::sequential, path)))
        << to_string(path);
  }
  for (const LoadPath path :
       {LoadPath::ca, LoadPath::cg, LoadPath::cv, LoadPath::nc, LoadPath::tex}) {
    EXPECT_TRUE(upload_sparse(strided(64 * 1024, 4096, ChaseOrder::sequential, path)))
        << to_string(path);
  }
}

TEST(ChainUploadRule, EvictionSweepsFollowTheSameRule) {
  ChaseSpec spec = strided(64 * 1024, 128);
  spec.eviction = EvictionSweep{LoadPath::tex, 1 * kGiB, 4096, 1};
  EXPECT_TRUE(upload_sparse(eviction_chain_spec(spec)));
  spec.eviction = EvictionSweep{LoadPath::ca, 1 * kMiB, 16, 1};
  EXPECT_FALSE(upload_sparse(eviction_chain_spec(spec)));
  spec.eviction = EvictionSweep{LoadPath::constant, 32 * 1024, 4096, 1};
  EXPECT_FALSE(upload_sparse(eviction_chain_spec(spec))) << "the constant bank takes the array";
}

TEST(ChainLinks, ScatteredIntoMarkersTheyGiveBuildChain) {
  ChaseSpec sweeping = strided(64 * 1024, 128);
  sweeping.eviction = EvictionSweep{LoadPath::nc, 256 * 1024, 256, 2};
  const std::vector<ChaseSpec> specs = {
      strided(64 * 1024, 64),
      strided(64 * 1024, 4),  // dense, but the links are exact all the same
      strided(64 * 1024 + 100, 256, ChaseOrder::random_permutation),
      strided(4096, 2048, ChaseOrder::random_permutation),  // two elements: no shuffle
      strided(4096, 4096),                                  // one element, pointing at itself
      explicit_chain(8192, {5, 1000, 17, 2047, 3, 640, 129}),
      private_segments(64 * 1024, 64, 4, ChaseOrder::sequential),
      private_segments(64 * 1024 + 300, 192, 3, ChaseOrder::random_permutation),
      eviction_chain_spec(sweeping),
  };
  for (const ChaseSpec& spec : specs) {
    const std::vector<ChainLink> links = chain_links(spec);
    EXPECT_EQ(links.size(), on_chain_words(spec)) << describe(spec);
    EXPECT_TRUE(scatter(spec, links) == build_chain(spec)) << describe(spec);
    std::unordered_set<std::uint32_t> indices;
    for (const ChainLink& link : links) indices.insert(link.index);
    EXPECT_EQ(indices.size(), links.size()) << "an index repeats: " << describe(spec);
  }
}

TEST(ChainLinks, FollowTheVisitingOrderSegmentBySegment) {
  const ChaseSpec spec = private_segments(64 * 1024, 1024, 2, ChaseOrder::random_permutation);
  const std::vector<ChainLink> links = chain_links(spec);
  const std::uint64_t n = chain_length(spec);
  ASSERT_EQ(links.size(), 2 * n);
  for (std::uint32_t chaser = 0; chaser < 2; ++chaser) {
    const std::vector<std::uint32_t> order = chain_order(spec, chaser);
    for (std::uint64_t k = 0; k < n; ++k) {
      EXPECT_EQ(links[chaser * n + k], (ChainLink{order[k], order[(k + 1) % n]}))
          << "chaser " << chaser << ", element " << k;
    }
  }
}

TEST(ChainLinks, AHugeSparseChainCostsOnlyItsLinks) {
  // Just under 16 GiB at a 2 MiB stride: 8191 links. build_chain would take 16 GiB of host
  // memory; the links take 64 KiB and no time.
  const auto begin = std::chrono::steady_clock::now();
  for (const ChaseOrder order : {ChaseOrder::sequential, ChaseOrder::random_permutation}) {
    const ChaseSpec spec = strided(kLargestFootprint, 2u << 20, order);
    ASSERT_TRUE(upload_sparse(spec));
    const std::vector<ChainLink> links = chain_links(spec);
    ASSERT_EQ(links.size(), 8191u) << to_string(order);
    const std::uint32_t step = (2u << 20) / 4;
    if (order == ChaseOrder::sequential) {
      EXPECT_EQ(links.front(), (ChainLink{0, step}));
      EXPECT_EQ(links.back(), (ChainLink{8190 * step, 0}));
    }
    // One cycle through every element: following the links from word 0 visits all of them.
    std::unordered_map<std::uint32_t, std::uint32_t> next;
    for (const ChainLink& link : links) next[link.index] = link.next;
    std::uint32_t at = 0;
    for (std::size_t k = 0; k < links.size(); ++k) {
      ASSERT_TRUE(next.contains(at)) << to_string(order) << ": left the chain at " << at;
      ASSERT_EQ(at % step, 0u);
      at = next[at];
    }
    EXPECT_EQ(at, 0u) << to_string(order) << ": not a single cycle";
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
  EXPECT_LT(took.count(), 1.0) << "links of 8191 elements took " << took.count() << " s";
}

TEST(ChainLinks, ExplicitIndicesOverAHugeFootprint) {
  // 3000 of the 8191 2 MiB pages of a 16 GiB footprint, in a scrambled order (k * 5003 mod the
  // prime 8191 never repeats for k < 8191), a word or a few into each page.
  std::vector<std::uint32_t> indices;
  for (std::uint64_t k = 0; k < 3000; ++k) {
    const std::uint64_t page = k * 5003 % 8191;
    indices.push_back(static_cast<std::uint32_t>(page * (1u << 19) + k % 7));
  }
  const ChaseSpec spec = explicit_chain(kLargestFootprint, indices);
  ASSERT_TRUE(upload_sparse(spec));
  const std::vector<ChainLink> links = chain_links(spec);
  ASSERT_EQ(links.size(), indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    EXPECT_EQ(links[k], (ChainLink{indices[k], indices[(k + 1) % indices.size()]})) << k;
  }
}

TEST(ChainLinks, RejectInvalidSpecs) {
  EXPECT_THROW(chain_links(strided(4096, 6)), ExperimentError);
  EXPECT_THROW(chain_links(explicit_chain(64, {3, 16})), ExperimentError);
}

}  // namespace
}  // namespace memtopo
