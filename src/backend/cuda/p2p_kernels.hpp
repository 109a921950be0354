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

// The turns of a chase from every SM (device memory, zeroed before the launch).
inline constexpr std::uint32_t kRemoteChaseMaxSms = 256;  // %smid values below this take a turn
struct RemoteChaseTurns {
  std::uint32_t claimed[kRemoteChaseMaxSms];  // 1 once a block on that %smid took it
  std::uint32_t tickets;                      // turns handed out
  std::uint32_t serving;                      // the turn now chasing
  std::uint32_t position;                     // where the chain continues
};

// The chase of launch_remote_chase from every SM of the current device (`sm_count` of them) in
// turn: turn t writes its samples to cycles[t * samples + s], ns[...] and its %smid to
// sm_of_turn[t]; `turns->tickets` counts the turns. `cycles` and `ns` hold kRemoteChaseMaxSms *
// samples entries, `sm_of_turn` kRemoteChaseMaxSms. Queued on `stream`.
void launch_remote_chase_every_sm(const std::uint32_t* chain, std::uint32_t loads_per_sample,
                                  std::uint32_t samples, int sm_count, RemoteChaseTurns* turns,
                                  std::uint64_t* cycles, std::uint64_t* ns,
                                  std::uint32_t* sm_of_turn, cudaStream_t stream);

// Every SM of the current device loads (read) or stores (write) `bytes` at `data` (16-byte
// aligned, a multiple of 16 bytes), in 16-byte vectors with a grid-stride loop, `passes` times
// over in one launch. `sink` (device memory, 16 bytes) keeps the loads alive. Queued on `stream`.
// With `copy` (a read only: `bytes` of the current device's memory), every loaded vector is
// stored there instead: an SM copy in; `deep` launches it in nvbandwidth's shape (one block of
// 512 threads per SM, 12 loads in flight per thread, plain loads) instead of 2 x 1024 threads
// with 4 ld.global.cg loads each.
void launch_remote_stream(void* data, std::size_t bytes, std::uint32_t passes, bool write,
                          int sm_count, void* sink, cudaStream_t stream, void* copy = nullptr,
                          bool deep = false);

}  // namespace memtopo
