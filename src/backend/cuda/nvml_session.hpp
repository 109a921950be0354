#pragma once
// NVML, loaded at run time with dlopen: the binary never links it, so it starts on machines
// without the NVIDIA driver and degrades to "no NVML values" instead of failing to load.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/device_conditions.hpp"

namespace memtopo {

class NvmlSession {
 public:
  // Loads libnvidia-ml.so.1, initialises NVML and finds the device with this PCI bus id
  // ("0000:17:00.0", as cudaDeviceGetPCIBusId writes it). Never throws: on any failure the
  // session is unavailable and status() says why.
  explicit NvmlSession(const std::string& pci_bus_id);
  ~NvmlSession();
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;

  bool available() const { return device_ != nullptr; }
  // "ok", or the reason NVML values are missing.
  const std::string& status() const { return status_; }

  std::optional<std::uint32_t> sm_clock_mhz() const;
  std::optional<std::uint32_t> max_sm_clock_mhz() const;
  std::optional<std::uint32_t> memory_clock_mhz() const;

  // The readings below are nullopt where the driver's NVML lacks the function or the device
  // does not report the value.
  std::optional<std::uint32_t> temperature_c() const;
  std::optional<std::uint32_t> power_mw() const;
  // nvmlClocksEventReason* bits (the former "throttle reasons").
  std::optional<std::uint64_t> clocks_event_reasons() const;
  // "GPU-..." of the device (the physical GPU when it is split into MIG instances).
  std::optional<std::string> uuid() const;
  // Whether the GPU is split into MIG instances (its current mode).
  std::optional<bool> mig_enabled() const;

  // Processes with a compute context on the device, and those NVML lists as MPS clients,
  // names left empty; on a MIG instance selected with use_mig_instance, that instance's.
  std::optional<std::vector<GpuProcess>> compute_processes() const;
  std::optional<std::vector<GpuProcess>> mps_processes() const;
  // The name NVML gives a process (control characters replaced); empty when it cannot tell.
  std::string process_name(std::uint32_t pid) const;
  // Lists processes of the MIG instance with this UUID ("MIG-...") instead of the whole GPU.
  // False when NVML knows no MIG instance by that UUID.
  bool use_mig_instance(const std::string& mig_uuid);
  // The MIG instance use_mig_instance selected; empty for the whole GPU.
  const std::string& mig_instance() const { return mig_instance_; }

 private:
  struct Api;
  std::optional<std::uint32_t> clock(int clock_type, bool maximum) const;
  std::optional<std::vector<GpuProcess>> processes(bool mps) const;
  void fail(const std::string& why);

  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;          // nvmlDevice_t of the GPU
  void* process_device_ = nullptr;  // the GPU's, or its MIG instance's
  bool initialised_ = false;
  std::string status_;
  std::string mig_instance_;
};

// NVML's compute processes and MPS clients of the device (or of its MIG instance).
std::optional<std::vector<GpuProcess>> processes_on(const NvmlSession& nvml);

}  // namespace memtopo
