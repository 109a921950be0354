#pragma once
// Runs one stream (backend/stream.hpp) on the GPU: checks that its configuration fits, places
// its arrays, launches the warm-up and timed launches and reads back times and clocks.
#include <cstdint>

#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/nvml_session.hpp"
#include "backend/stream.hpp"

namespace memtopo {

struct StreamRunnerConfig {
  std::uint32_t sm_count = 0;                // the grid is blocks_per_sm x this
  std::size_t max_dynamic_shared_bytes = 0;  // opt-in shared memory per block
  std::uint64_t max_texture_1d_linear_elements = 0;
  std::uint64_t global_memory_bytes = 0;      // sizes what the runner keeps between streams
  std::uint64_t max_grid_blocks = INT32_MAX;  // gridDim.x of every CUDA device since sm_30
};

class StreamRunner {
 public:
  StreamRunner(StreamRunnerConfig config, const NvmlSession& nvml);

  // `device_bytes_free`: device memory the stream's arrays may take now. Throws ExperimentError
  // for a spec that cannot run as asked (no kernel for it, fewer blocks per SM fit than it
  // asks: a partial wave would make it time something else), CudaError & co. when CUDA fails.
  StreamResult run(const StreamSpec& spec, std::uint64_t device_bytes_free);

 private:
  struct Launch;  // kernel, grid and the arguments of one spec
  Launch prepare(const StreamSpec& spec, std::uint64_t device_bytes_free);
  void check_fits(const StreamSpec& spec, const void* kernel, std::size_t shared_bytes) const;
  void provide_arrays(const StreamSpec& spec, std::uint64_t device_bytes_free);
  double measured_sm_clock_khz(std::uint32_t first_timed, std::uint32_t timed) const;
  // Frees the arrays when they hold more than a small share of the device memory.
  void release_large_arrays() noexcept;
  std::uint64_t held_bytes() const noexcept;  // of every array kept

  StreamRunnerConfig config_;
  const NvmlSession& nvml_;
  DeviceBuffer<unsigned char> source_;
  DeviceBuffer<unsigned char> second_source_;  // a triad's c
  DeviceBuffer<unsigned char> third_source_;   // a triad3's d
  DeviceBuffer<unsigned char> destination_;
  DeviceBuffer<std::uint64_t> clocks_;
  DeviceBuffer<std::uint32_t> sink_;
};

}  // namespace memtopo
