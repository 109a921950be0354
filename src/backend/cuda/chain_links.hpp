#pragma once
// How a chase array reaches the device (pure host logic, no CUDA): densely, as the whole
// array build_chain makes, or sparsely, as the (index, next) pairs of its on-chain words,
// scattered by the device into an array it has filled with kNotOnChain itself.
//
// Why: a TLB probe chases a few thousand elements (2 MiB strides, explicit indices) over
// 8-16 GiB. The dense array costs host memory, fill time and transfer proportional to the
// footprint (16 GiB for 4096 loads); the pairs cost 8 bytes per element.
#include <cstdint>
#include <vector>

#include "backend/chain.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

// One on-chain word: array word `index` holds `next`. The scatter kernel's input, so both
// compilers must agree on its layout (two 32-bit words, no padding).
struct ChainLink {
  std::uint32_t index;
  std::uint32_t next;
  bool operator==(const ChainLink&) const = default;
};
static_assert(sizeof(ChainLink) == 8, "ChainLink layout must match on host and device");

// One element of a wide chain (ChaseSpec::wide_indices): the 64-bit element at word `index`
// (even) holds `next`. The wide scatter kernel's input.
struct WideChainLink {
  std::uint64_t index;
  std::uint64_t next;
  bool operator==(const WideChainLink&) const = default;
};
static_assert(sizeof(WideChainLink) == 16, "WideChainLink layout must match on host and device");

// The rule: an array goes up sparsely when at most 1 of every kSparseWordsPerLink of its words
// is on a chain (for strided chains: a stride of 64 bytes or more), and densely otherwise.
// At that density the pairs are at most 1/8 of the dense array's bytes (8 bytes per on-chain
// word against 4 per word) and the scatter writes at most every other 32-byte sector, so the
// sparse path is always the cheaper one; denser chains (the 4-32 byte strides of line-size
// probes) keep the dense path, whose array is then at most 16 times the chain, so its cost is
// still proportional to the chain and never to a footprint the chain barely touches.
inline constexpr std::uint64_t kSparseWordsPerLink = 16;

// Words of the array that hold a link: the chain's elements, times the chasers with private
// segments (every segment holds its own chain).
std::uint64_t on_chain_words(const ChaseSpec& spec);

// True when `spec`'s array goes up sparsely (see kSparseWordsPerLink; always for a wide chain,
// as wide_chain_links). Never on the constant
// and shared paths: their arrays are at most 64 KiB and 228 KiB, copied whole (the constant
// bank by cudaMemcpyToSymbol, the shared chain by the kernel itself).
bool upload_sparse(const ChaseSpec& spec);

// Every on-chain word of build_chain(spec) and what it holds, segment by segment in visiting
// order: scattered into an array of footprint_bytes / 4 words of kNotOnChain, they give
// exactly build_chain(spec). Host memory proportional to the chain, never to the footprint.
// Validates the spec (ExperimentError) unless `check` says the caller has (chain.hpp).
std::vector<ChainLink> chain_links(const ChaseSpec& spec, SpecCheck check = SpecCheck::validate);

// Every element of a wide chain and what it holds, in visiting order (the last holds the
// first). A wide chain always goes up this way. Validates the spec (ExperimentError) unless
// `check` says the caller has.
std::vector<WideChainLink> wide_chain_links(const ChaseSpec& spec,
                                            SpecCheck check = SpecCheck::validate);

}  // namespace memtopo
