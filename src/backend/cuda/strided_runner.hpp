#pragma once
// Runs strided warp requests (backend/strided_access.hpp) on the GPU: the throughput launches
// timed with CUDA events, the latency warp timed request by request.
#include <cstdint>

#include "backend/strided_access.hpp"

namespace memtopo {

struct StridedRunnerConfig {
  std::uint32_t sm_count = 0;
  std::size_t max_dynamic_shared_bytes = 0;  // opt-in shared memory per block
};

// Throws ExperimentError for a spec it cannot run (a shared window beyond a block's shared
// memory, local frames beyond the free device memory), CudaError & co. when CUDA fails.
StridedAccessResult run_strided_on_gpu(const StridedAccessSpec& spec,
                                       const StridedRunnerConfig& config);

}  // namespace memtopo
