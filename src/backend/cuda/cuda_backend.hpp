#pragma once
// Factory for the real-GPU backend. Host code outside backend/cuda includes only this header.
#include <memory>

#include "backend/backend.hpp"

namespace memtopo {

// Opens CUDA device `device_index`. Throws NoDeviceError (with what to check) when no driver
// or device is available or the index is out of range.
std::unique_ptr<Backend> make_cuda_backend(int device_index);

}  // namespace memtopo
