#include "backend/cuda/nvml_session.hpp"

#include <dlfcn.h>

namespace memtopo {

namespace {

// The few pieces of the NVML C ABI used here, declared locally so that the build needs no
// nvml.h (not every toolkit installation ships it). Values from the NVML API reference.
using NvmlReturn = int;    // nvmlReturn_t
using NvmlDevice = void*;  // nvmlDevice_t
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

}  // namespace

struct NvmlSession::Api {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*max_clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
};

NvmlSession::NvmlSession(const std::string& pci_bus_id) : api_(std::make_unique<Api>()) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* why = dlerror();
    fail(std::string("cannot load libnvidia-ml.so.1: ") + (why ? why : "unknown dlopen error"));
    return;
  }
  api_->init = symbol<decltype(api_->init)>(library_, "nvmlInit_v2");
  api_->shutdown = symbol<decltype(api_->shutdown)>(library_, "nvmlShutdown");
  api_->error_string = symbol<decltype(api_->error_string)>(library_, "nvmlErrorString");
  api_->handle_by_pci_bus_id =
      symbol<decltype(api_->handle_by_pci_bus_id)>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  api_->clock_info = symbol<decltype(api_->clock_info)>(library_, "nvmlDeviceGetClockInfo");
  api_->max_clock_info =
      symbol<decltype(api_->max_clock_info)>(library_, "nvmlDeviceGetMaxClockInfo");
  if (!api_->init || !api_->shutdown || !api_->error_string || !api_->handle_by_pci_bus_id ||
      !api_->clock_info || !api_->max_clock_info) {
    fail("libnvidia-ml.so.1 lacks an expected function (driver too old?)");
    return;
  }
  if (const NvmlReturn rc = api_->init(); rc != kNvmlSuccess) {
    fail(std::string("nvmlInit failed: ") + api_->error_string(rc));
    return;
  }
  initialised_ = true;
  NvmlDevice device = nullptr;
  if (const NvmlReturn rc = api_->handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
      rc != kNvmlSuccess) {
    fail("NVML has no device with PCI bus id " + pci_bus_id + ": " + api_->error_string(rc));
    return;
  }
  device_ = device;
  status_ = "ok";
}

NvmlSession::~NvmlSession() {
  if (initialised_) api_->shutdown();
  if (library_ != nullptr) dlclose(library_);
}

void NvmlSession::fail(const std::string& why) {
  device_ = nullptr;
  status_ = why;
}

std::optional<std::uint32_t> NvmlSession::clock(int clock_type, bool maximum) const {
  if (!available()) return std::nullopt;
  unsigned int mhz = 0;
  const auto query = maximum ? api_->max_clock_info : api_->clock_info;
  if (query(device_, clock_type, &mhz) != kNvmlSuccess) return std::nullopt;
  return mhz;
}

std::optional<std::uint32_t> NvmlSession::sm_clock_mhz() const {
  return clock(kNvmlClockSm, false);
}
std::optional<std::uint32_t> NvmlSession::max_sm_clock_mhz() const {
  return clock(kNvmlClockSm, true);
}
std::optional<std::uint32_t> NvmlSession::memory_clock_mhz() const {
  return clock(kNvmlClockMem, false);
}

}  // namespace memtopo
