#pragma once
// Chooses the device a discovery runs on: --sim FILE, else the CUDA device. Never a silent
// fallback: without a usable GPU memtopo stops with exit code 3, the reason and the --sim hint
// (a batch script must not see a simulated device's results as success).
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "cli/gpu_claim.hpp"
#include "cli/options.hpp"

namespace memtopo {

struct OpenedBackend {
  std::unique_ptr<Backend> backend;
  bool simulated = false;
  std::string sim_file;  // the description the simulated device was built from
};

// Throws what the factories throw: NoDeviceError, DescriptionError, OutOfMemoryError, and
// what `before_context` throws (a GPU only: called before memtopo creates its context there).
OpenedBackend open_backend(const Options& options, const BeforeContext& before_context = {});

// open_backend with the GPU's lock taken into `claim` before the context is created (every
// command that measures opens its device this way). On failure prints the cause and what to
// do on `err`, sets `exit` (no device, bad input, GPU in use, interrupted, out of memory) and
// returns nullopt.
std::optional<OpenedBackend> open_device(const Options& options, GpuClaim& claim, std::ostream& err,
                                         int& exit);

// False after saying on `err` (prefixed "<program>: ") that --sim names a file that does not
// exist; true when --sim is not given or its file exists. Checked before anything is measured.
bool sim_file_exists(const Options& options, const std::string& program, std::ostream& err);

}  // namespace memtopo
