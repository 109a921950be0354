#pragma once
// Factory for the p2p interface (backend/p2p.hpp) on real GPUs. Host code outside backend/cuda
// includes only this header.
#include <memory>
#include <vector>

#include "backend/p2p.hpp"

namespace memtopo {

// The number of CUDA devices visible. Throws NoDeviceError (with what to check) when there is
// no driver or no device.
int cuda_device_count();

// The p2p interface over these CUDA devices (positions 0 .. n-1 in this order). Enables peer
// access between every pair that allows it. Throws NoDeviceError for an index out of range.
std::unique_ptr<PeerBackend> make_cuda_peer_backend(const std::vector<int>& cuda_indices);

}  // namespace memtopo
