#pragma once
// NVML, loaded at run time with dlopen: the binary never links it, so it starts on machines
// without the NVIDIA driver and degrades to "no NVML values" instead of failing to load.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

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

 private:
  struct Api;
  std::optional<std::uint32_t> clock(int clock_type, bool maximum) const;
  void fail(const std::string& why);

  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;  // nvmlDevice_t
  bool initialised_ = false;
  std::string status_;
};

}  // namespace memtopo
