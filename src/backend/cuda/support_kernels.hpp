#pragma once
// Small kernels the backend needs around the chase: finding the SM ids a launch can land on,
// evicting the L2 before a cold chase, and writing a sparse chain. Plain C++ interface.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/cuda/chain_links.hpp"

namespace memtopo {

// The %smid values blocks actually run on (sorted, unique): %smid need not be contiguous
// nor below the SM count, so the backend asks the device instead of assuming
// 0 .. sm_count-1. Each launch has 4 blocks per SM, each asking for `block_shared_bytes`
// (the opt-in maximum, so that an SM holds one at a time and every SM gets one); launches
// repeat, up to `launches`, until sm_count ids have been seen.
std::vector<std::uint32_t> survey_sm_ids(std::uint32_t sm_count, int launches,
                                         std::size_t block_shared_bytes);

// Reads `bytes` of `scratch` through L2 (ld.global.cg, bypassing L1): every line the next
// kernel could find in L2 is replaced by a clean scratch line. Waits for completion.
void evict_l2(const void* scratch, std::size_t bytes, std::uint32_t* sink);

// Stores links[i].next at words[links[i].index] for i < count (device pointers; every index
// inside the array at `words`). Launched on the default stream, in order after what the host
// queued there before (the fill with kNotOnChain, the copy of `links`); does not wait, so a
// fault shows at the next synchronising call.
void scatter_chain_links(std::uint32_t* words, const ChainLink* links, std::size_t count);
// The same for a wide chain: stores links[i].next as the 64-bit element at word links[i].index
// (even, so 8-byte aligned when `words` is).
void scatter_wide_chain_links(std::uint32_t* words, const WideChainLink* links, std::size_t count);

}  // namespace memtopo
