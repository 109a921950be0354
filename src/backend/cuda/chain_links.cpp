#include "backend/cuda/chain_links.hpp"

#include <span>

#include "backend/chain.hpp"

namespace memtopo {

namespace {

std::uint32_t segment_count(const ChaseSpec& spec) {
  // As build_chain lays them out: one segment per chaser with private segments.
  return spec.private_segments ? spec.chasers : 1;
}

}  // namespace

std::uint64_t on_chain_words(const ChaseSpec& spec) {
  return chain_length(spec) * segment_count(spec);
}

bool upload_sparse(const ChaseSpec& spec) {
  if (is_wide(spec)) return true;
  if (spec.path == LoadPath::constant || spec.path == LoadPath::shared) return false;
  return on_chain_words(spec) * kSparseWordsPerLink <= spec.footprint_bytes / 4;
}

std::vector<ChainLink> chain_links(const ChaseSpec& spec, SpecCheck check) {
  // One order for all segments (a random order's shuffle runs once), shifted per segment as
  // build_chain does; an explicit chain's indices are read in place.
  std::vector<std::uint32_t> storage;
  const std::span<const std::uint32_t> order = chain_order_view(spec, storage, check);
  const std::uint32_t segments = segment_count(spec);
  const std::uint64_t segment_words = segment_bytes(spec) / 4;
  std::vector<ChainLink> links;
  links.reserve(order.size() * segments);
  for (std::uint32_t segment = 0; segment < segments; ++segment) {
    const auto shift = static_cast<std::uint32_t>(segment * segment_words);
    for (std::size_t k = 0; k < order.size(); ++k) {
      links.push_back({order[k] + shift, order[(k + 1) % order.size()] + shift});
    }
  }
  return links;
}

std::vector<WideChainLink> wide_chain_links(const ChaseSpec& spec, SpecCheck check) {
  const std::vector<std::uint64_t> order = wide_order(spec, check);
  std::vector<WideChainLink> links;
  links.reserve(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    links.push_back({order[k], order[(k + 1) % order.size()]});
  }
  return links;
}

}  // namespace memtopo
