#pragma once
// Putting one chase's arrays where its kernel reads them, describing them in its descriptor, and
// checking afterwards that the device followed them (host code around ChaseRunner).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/cuda/chain_links.hpp"
#include "backend/cuda/chase_job.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/texture_object.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

// Device scratch for the links of sparse and wide chains on their way up (write_chain,
// write_wide_chain), kept by the runner between chases.
struct LinkScratch {
  DeviceBuffer<ChainLink> narrow;
  DeviceBuffer<WideChainLink> wide;
  std::uint64_t bytes() const { return narrow.bytes() + wide.bytes(); }
};

// A chain where its path reads it.
struct DeviceChain {
  const std::uint32_t* words = nullptr;  // in global memory (not for the constant path)
  std::uint64_t texture = 0;             // tex: a texture object over `words`
};

// Words of a chain's array: what the kernel's stray check and a texture's width are about,
// whether the array went up densely or sparsely. 32-bit chains only (a wide chain's array may
// hold more than 2^32 words).
std::uint32_t array_words(const ChaseSpec& chain_spec);

// Writes the array `chain_spec` describes (a chase's, or eviction_chain_spec's for a sweep) to
// the constant bank (constant path) or to `buffer` at `offset`, densely, sparsely or wide (see
// write_chain, write_wide_chain), with a texture object over the whole array for the tex path
// (kept in `textures` until the launch is over). The texture spans footprint_bytes / 4 words
// either way, so the width limit that check_runnable applies to the footprint still holds.
// `check`: whether the caller validated chain_spec already (chain.hpp).
DeviceChain put_chain(const ChaseSpec& chain_spec, DeviceBuffer<std::uint32_t>& buffer,
                      std::uint64_t offset, LinkScratch& link_scratch,
                      std::vector<TextureObject>& textures, SpecCheck check);

// The eviction sweep's part of a descriptor: its chain, its path and how many loads.
void describe_sweep(const ChaseSpec& spec, const DeviceChain& sweep, ChaseJob& job);

// What went wrong with a job whose outcome is not kChaseDone, for an exception's message.
// `array_words`: the chase's array length in words (a wide chain's may pass 2^32).
std::string describe_stray(const ChaseSpec& spec, std::size_t spec_index,
                           const ChaseOutcome& outcome, const ChaseJob& job,
                           std::uint64_t array_words);

// A wide chain's array is not filled with an off-chain marker (write_wide_chain), so the
// recorded indices are checked instead: every chaser's timed loads must read consecutive
// elements of the chain. Throws std::runtime_error naming the first that did not.
void check_followed_wide_chain(const ChaseSpec& spec, std::size_t spec_index,
                               const std::vector<std::uint64_t>& recorded);

}  // namespace memtopo
