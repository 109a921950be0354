#pragma once
// Chooses the device a discovery runs on: --sim FILE, else the CUDA device, else (only when
// no GPU is visible and --device was not named) the bundled simulated device.
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "cli/options.hpp"

namespace memtopo {

struct OpenedBackend {
  std::unique_ptr<Backend> backend;
  bool simulated = false;
  std::string sim_file;         // the description the simulated device was built from
  std::string fallback_reason;  // set when memtopo fell back to the bundled device: why
};

// Throws what the factories throw: NoDeviceError, DescriptionError, OutOfMemoryError, and
// what `before_context` throws (a GPU only: called before memtopo creates its context there).
OpenedBackend open_backend(const Options& options, const BeforeContext& before_context = {});

}  // namespace memtopo
