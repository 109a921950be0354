#pragma once
// Facts a device reports about itself (CUDA runtime, NVML, or a simulated description).
// None of these is a measurement; reporters mark them `source: api`.
#include <cstdint>
#include <optional>
#include <string>

namespace memtopo {

struct DeviceFacts {
  std::string name;
  std::string backend;  // "cuda" or "sim"
  int device_index = 0;
  int cc_major = 0;
  int cc_minor = 0;
  std::uint32_t sm_count = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t persisting_l2_max_bytes = 0;
  std::uint64_t shared_per_sm_bytes = 0;
  std::uint64_t shared_per_block_bytes = 0;
  std::uint64_t shared_per_block_optin_bytes = 0;
  std::uint64_t constant_bytes = 0;
  std::uint32_t warp_size = 32;
  std::uint32_t max_threads_per_sm = 0;
  std::uint64_t sm_clock_khz = 0;      // runtime's reported (maximum) SM clock
  std::uint64_t memory_clock_khz = 0;
  std::uint32_t memory_bus_width_bits = 0;
  bool global_l1_cache_supported = false;
  bool local_l1_cache_supported = false;
  std::string pci_bus_id;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;  // e.g. 13000
  // From NVML when the library could be loaded at run time.
  std::optional<std::uint32_t> nvml_sm_clock_mhz;
  std::optional<std::uint32_t> nvml_max_sm_clock_mhz;
  std::optional<std::uint32_t> nvml_memory_clock_mhz;
  std::string nvml_status;  // why NVML values are missing, if they are
  std::string uuid;         // "GPU-..." or "MIG-..." as nvidia-smi -L shows it; empty if unknown
  // Multi-Instance GPU: "enabled (this device is MIG-...)", "enabled", "disabled"; "" unknown.
  std::string mig;
  // Multi-Process Service: "active (...how it was seen...)", "inactive"; "" unknown.
  std::string mps;
};

}  // namespace memtopo
