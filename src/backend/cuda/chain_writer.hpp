#pragma once
// Writing a chase array into device memory, densely or sparsely (chain_links.hpp says which
// and why).
#include <cstddef>
#include <cstdint>

#include "backend/cuda/chain_links.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/experiment.hpp"

namespace memtopo {

// Links one scatter takes at most: bounds the device scratch to 8 MiB whatever the chain, so
// that a sparse chain never needs device memory beyond its own array worth mentioning.
inline constexpr std::size_t kScatterChunkLinks = std::size_t{1} << 20;

// Writes build_chain(spec), footprint_bytes / 4 words, into `buffer` from word `offset`.
// Dense (upload_sparse(spec) false): the host builds the array and copies it. Sparse: the
// device fills the words with kNotOnChain, and chain_links(spec) goes up through `scratch`
// (grown as needed, kept by the caller) in pieces of `chunk_links` links, each scattered by a
// kernel; no host memory proportional to the footprint. Not for the constant path.
// Queued on the default stream: a chase launched there afterwards reads the whole array.
// Throws OutOfMemoryError when the scratch cannot be allocated, ExperimentError for a bad spec
// (unless `check` says the caller validated it: chain.hpp).
void write_chain(const ChaseSpec& spec, DeviceBuffer<std::uint32_t>& buffer, std::size_t offset,
                 DeviceBuffer<ChainLink>& scratch, std::size_t chunk_links = kScatterChunkLinks,
                 SpecCheck check = SpecCheck::validate);

// Writes a wide chain (is_wide(spec)) into `buffer` from word `offset` (even): its links go up
// through `scratch` and a kernel scatters them, as for a sparse chain. The rest of the array is
// left as it was: filling 100 GiB would cost tens of milliseconds per chase, and a stale word
// is caught anyway (the runner checks that the recorded indices followed the chain). Queued on
// the default stream. Throws like write_chain, std::out_of_range when the array exceeds the
// buffer.
void write_wide_chain(const ChaseSpec& spec, DeviceBuffer<std::uint32_t>& buffer,
                      std::size_t offset, DeviceBuffer<WideChainLink>& scratch,
                      std::size_t chunk_links = kScatterChunkLinks,
                      SpecCheck check = SpecCheck::validate);

}  // namespace memtopo
