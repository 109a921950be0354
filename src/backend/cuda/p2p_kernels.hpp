#pragma once
// Launchers of the p2p kernels (p2p_kernels.cu). Host code includes this, not the .cu.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace memtopo {

// One thread chases `chain` (word i holds the word index of the next element, from word 0):
// one untimed group of `loads_per_sample` loads, then `samples` timed groups, each one's SM
// cycles and global-timer ns written to cycles[s], ns[s] (device memory). Queued on `stream`.
void launch_remote_chase(const std::uint32_t* chain, std::uint32_t loads_per_sample,
                         std::uint32_t samples, std::uint64_t* cycles, std::uint64_t* ns,
                         std::uint32_t* sink, cudaStream_t stream);

// Every SM of the current device loads (read) or stores (write) `bytes` at `data` (16-byte
// aligned, a multiple of 16 bytes), in 16-byte vectors with a grid-stride loop, `passes` times
// over in one launch. `sink` (device memory, 16 bytes) keeps the loads alive. Queued on `stream`.
// With `copy` (a read only: `bytes` of the current device's memory), every loaded vector is
// stored there instead: an SM copy in.
void launch_remote_stream(void* data, std::size_t bytes, std::uint32_t passes, bool write,
                          int sm_count, void* sink, cudaStream_t stream, void* copy = nullptr);

}  // namespace memtopo
