#pragma once
// Factory for the real-GPU backend. Host code outside backend/cuda includes only this header.
#include <functional>
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace memtopo {

// Opens CUDA device `device_index`. Throws NoDeviceError (with what to check) when no driver
// or device is available or the index is out of range.
std::unique_ptr<Backend> make_cuda_backend(int device_index);

// Called with the device's UUID ("GPU-...") before memtopo creates its context on the device.
using BeforeContext = std::function<void(const std::string& device_uuid)>;
// The same, calling `before_context` first: the CLI takes its per-GPU lock there, so that a
// memtopo waiting for another holds no context (which the other would see on the GPU).
std::unique_ptr<Backend> make_cuda_backend(int device_index, const BeforeContext& before_context);

}  // namespace memtopo
