#include "backend/cuda/chain_writer.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/chain.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/support_kernels.hpp"

namespace memtopo {

namespace {

// Bytes of 0xFF make every word kNotOnChain: one memset writes the off-chain marker, and a
// stray load still reads an index outside the array.
constexpr unsigned char kNotOnChainByte = 0xFF;
static_assert(kNotOnChain == 0xFFFFFFFFu, "the memset byte must repeat into kNotOnChain");

// Grows `scratch` to hold `links` links. A scatter queued earlier may still be reading the old
// buffer, so wait for the device before freeing it (this happens a few times per runner,
// never per chain once the scratch has reached kScatterChunkLinks).
template <typename Link>
void ensure_scratch(DeviceBuffer<Link>& scratch, std::size_t links) {
  if (scratch.size() >= links) return;
  CUDA_CALL(cudaDeviceSynchronize());
  scratch = DeviceBuffer<Link>();
  try {
    scratch = DeviceBuffer<Link>(links);
  } catch (const OutOfMemoryError& error) {
    throw OutOfMemoryError("uploading a sparse chain needs " +
                           std::to_string(links * sizeof(Link)) +
                           " bytes of device memory for its links: " + error.what());
  }
}

// Uploads `links` through `scratch` in pieces of `chunk_links` and scatters each piece with
// `scatter(links on the device, count)`.
template <typename Link, typename Scatter>
void scatter_in_chunks(const std::vector<Link>& links, DeviceBuffer<Link>& scratch,
                       std::size_t chunk_links, const Scatter& scatter) {
  ensure_scratch(scratch, std::min(links.size(), chunk_links));
  const std::span<const Link> all(links);
  for (std::size_t first = 0; first < all.size(); first += chunk_links) {
    const auto chunk = all.subspan(first, std::min(chunk_links, all.size() - first));
    // Stream order: this copy overwrites the scratch only after the previous chunk's scatter
    // has run (a copy from pageable memory even waits for the stream before it starts).
    scratch.upload(chunk);
    scatter(scratch.data(), chunk.size());
  }
}

void write_sparse_chain(const ChaseSpec& spec, DeviceBuffer<std::uint32_t>& buffer,
                        std::size_t offset, DeviceBuffer<ChainLink>& scratch,
                        std::size_t chunk_links, SpecCheck check) {
  // Queued first: the device fills the array while the host computes the links.
  buffer.fill_bytes_async(kNotOnChainByte, offset, spec.footprint_bytes / 4);
  scatter_in_chunks(chain_links(spec, check), scratch, chunk_links,
                    [&](const ChainLink* links, std::size_t count) {
                      scatter_chain_links(buffer.data() + offset, links, count);
                    });
}

}  // namespace

void write_chain(const ChaseSpec& spec, DeviceBuffer<std::uint32_t>& buffer, std::size_t offset,
                 DeviceBuffer<ChainLink>& scratch, std::size_t chunk_links, SpecCheck check) {
  if (chunk_links == 0) throw std::invalid_argument("write_chain: chunk_links must be positive");
  if (spec.path == LoadPath::constant) {
    throw std::invalid_argument("write_chain: the constant path's chain goes to the bank");
  }
  if (is_wide(spec))
    throw std::invalid_argument("write_chain: a wide chain needs write_wide_chain");
  if (upload_sparse(spec)) {
    write_sparse_chain(spec, buffer, offset, scratch, chunk_links, check);
  } else {
    buffer.upload(build_chain(spec, check), offset);
  }
}

void write_wide_chain(const ChaseSpec& spec, DeviceBuffer<std::uint32_t>& buffer,
                      std::size_t offset, DeviceBuffer<WideChainLink>& scratch,
                      std::size_t chunk_links, SpecCheck check) {
  if (chunk_links == 0)
    throw std::invalid_argument("write_wide_chain: chunk_links must be positive");
  if (!is_wide(spec)) throw std::invalid_argument("write_wide_chain: not a wide chain");
  if (offset % 2 != 0) throw std::invalid_argument("write_wide_chain: odd word offset");
  if (spec.footprint_bytes / 4 > buffer.size() - std::min(offset, buffer.size())) {
    throw std::out_of_range("write_wide_chain: the chain's array exceeds the buffer");
  }
  scatter_in_chunks(wide_chain_links(spec, check), scratch, chunk_links,
                    [&](const WideChainLink* links, std::size_t count) {
                      scatter_wide_chain_links(buffer.data() + offset, links, count);
                    });
}

}  // namespace memtopo
