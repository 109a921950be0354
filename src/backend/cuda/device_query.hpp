#pragma once
// What the CUDA runtime (and NVML) say about a device: facts for the report, and the few
// extra attributes the launcher plans with.
#include <cstdint>
#include <string>

#include "backend/cuda/nvml_session.hpp"
#include "model/device_facts.hpp"

namespace memtopo {

// Attributes the backend needs for planning but that are not reported as device facts.
struct DevicePlanningAttributes {
  std::uint64_t max_texture_1d_linear_elements = 0;
  std::uint64_t texture_alignment_bytes = 0;
  std::uint32_t max_threads_per_block = 0;
  std::uint64_t reserved_shared_per_block_bytes = 0;
};

// Facts from cudaGetDeviceProperties and cudaDeviceGetAttribute. CUDA 13 dropped several
// cudaDeviceProp fields (clockRate, memoryClockRate, ...), so everything but the name and
// the memory size comes from attributes. Throws CudaError / NoDeviceError.
DeviceFacts read_cuda_device_facts(int device);
DevicePlanningAttributes read_planning_attributes(int device);

// Copies NVML's clocks (or the reason they are missing) into `facts`.
void add_nvml_facts(DeviceFacts& facts, const NvmlSession& nvml);

// The device's UUID as "GPU-..." (nvidia-smi -L's spelling; a MIG instance's UUID reads the
// same way with this prefix). Creates no context. Throws CudaError / NoDeviceError.
std::string read_device_uuid(int device);

}  // namespace memtopo
