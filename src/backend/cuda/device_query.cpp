#include "backend/cuda/device_query.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>

#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/gpu_sharing.hpp"

namespace memtopo {

namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CUDA_CALL(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::uint64_t attribute_u64(cudaDeviceAttr attr, int device) {
  const int value = attribute(attr, device);
  return value > 0 ? static_cast<std::uint64_t>(value) : 0;
}

}  // namespace

DeviceFacts read_cuda_device_facts(int device) {
  cudaDeviceProp props{};
  CUDA_CALL(cudaGetDeviceProperties(&props, device));

  DeviceFacts facts;
  facts.name = props.name;
  facts.backend = "cuda";
  facts.device_index = device;
  facts.global_memory_bytes = props.totalGlobalMem;
  facts.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, device);
  facts.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
  facts.sm_count =
      static_cast<std::uint32_t>(attribute_u64(cudaDevAttrMultiProcessorCount, device));
  facts.l2_bytes = attribute_u64(cudaDevAttrL2CacheSize, device);
  facts.persisting_l2_max_bytes = attribute_u64(cudaDevAttrMaxPersistingL2CacheSize, device);
  facts.shared_per_sm_bytes = attribute_u64(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  facts.shared_per_block_bytes = attribute_u64(cudaDevAttrMaxSharedMemoryPerBlock, device);
  facts.shared_per_block_optin_bytes =
      attribute_u64(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  facts.constant_bytes = attribute_u64(cudaDevAttrTotalConstantMemory, device);
  facts.warp_size = static_cast<std::uint32_t>(attribute_u64(cudaDevAttrWarpSize, device));
  facts.max_threads_per_sm =
      static_cast<std::uint32_t>(attribute_u64(cudaDevAttrMaxThreadsPerMultiProcessor, device));
  facts.sm_clock_khz = attribute_u64(cudaDevAttrClockRate, device);
  facts.memory_clock_khz = attribute_u64(cudaDevAttrMemoryClockRate, device);
  facts.memory_bus_width_bits =
      static_cast<std::uint32_t>(attribute_u64(cudaDevAttrGlobalMemoryBusWidth, device));
  facts.global_l1_cache_supported = attribute(cudaDevAttrGlobalL1CacheSupported, device) != 0;
  facts.local_l1_cache_supported = attribute(cudaDevAttrLocalL1CacheSupported, device) != 0;

  char bus_id[64] = {};
  CUDA_CALL(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  facts.pci_bus_id = bus_id;
  CUDA_CALL(cudaDriverGetVersion(&facts.driver_version));
  CUDA_CALL(cudaRuntimeGetVersion(&facts.runtime_version));
  return facts;
}

DevicePlanningAttributes read_planning_attributes(int device) {
  DevicePlanningAttributes attrs;
  attrs.max_texture_1d_linear_elements = attribute_u64(cudaDevAttrMaxTexture1DLinearWidth, device);
  attrs.texture_alignment_bytes = attribute_u64(cudaDevAttrTextureAlignment, device);
  attrs.max_threads_per_block =
      static_cast<std::uint32_t>(attribute_u64(cudaDevAttrMaxThreadsPerBlock, device));
  attrs.reserved_shared_per_block_bytes =
      attribute_u64(cudaDevAttrReservedSharedMemoryPerBlock, device);
  return attrs;
}

void add_nvml_facts(DeviceFacts& facts, const NvmlSession& nvml) {
  facts.nvml_status = nvml.status();
  if (!nvml.available()) return;
  facts.nvml_sm_clock_mhz = nvml.sm_clock_mhz();
  facts.nvml_max_sm_clock_mhz = nvml.max_sm_clock_mhz();
  facts.nvml_memory_clock_mhz = nvml.memory_clock_mhz();
  if (!facts.nvml_sm_clock_mhz || !facts.nvml_max_sm_clock_mhz || !facts.nvml_memory_clock_mhz) {
    facts.nvml_status = "ok, but NVML did not report every clock";
  }
}

std::string read_device_uuid(int device) {
  cudaDeviceProp props{};
  CUDA_CALL(cudaGetDeviceProperties(&props, device));
  unsigned char bytes[16];
  static_assert(sizeof bytes == sizeof props.uuid.bytes);
  std::memcpy(bytes, props.uuid.bytes, sizeof bytes);
  return format_gpu_uuid(bytes);
}

}  // namespace memtopo
