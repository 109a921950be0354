#include "backend/cuda/nvml_session.hpp"

#include <dlfcn.h>

#include <initializer_list>

namespace memtopo {

namespace {

// The few pieces of the NVML C ABI used here, declared locally so that the build needs no
// nvml.h (not every toolkit installation ships it). Values from the NVML API reference.
using NvmlReturn = int;    // nvmlReturn_t
using NvmlDevice = void*;  // nvmlDevice_t
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlInsufficientSize = 7;               // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kNvmlClockSm = 1;                               // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;                              // NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;                        // NVML_TEMPERATURE_GPU
constexpr unsigned int kNvmlMigEnabled = 1;                   // NVML_DEVICE_MIG_ENABLE
constexpr unsigned long long kNvmlValueNotAvailable = ~0ull;  // NVML_VALUE_NOT_AVAILABLE
// NVML_DEVICE_UUID_V2_BUFFER_SIZE and NVML_SYSTEM_PROCESS_NAME_BUFFER_SIZE, with room to spare.
constexpr unsigned int kNvmlUuidBytes = 96;
constexpr unsigned int kNvmlProcessNameBytes = 256;
// Processes may start between asking for the count and asking for the list: ask a few times.
constexpr int kProcessListAttempts = 3;

// nvmlProcessInfo_t of the _v2 and _v3 process queries (nvmlProcessInfo_v1_t lacks the two
// instance ids and is only used by the unversioned query, which this session does not call).
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
using ProcessQuery = NvmlReturn (*)(NvmlDevice, unsigned int*, NvmlProcessInfo*);

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

// The first of `names` the library exports (newer drivers add versioned names).
template <typename Function>
Function first_symbol(void* library, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto function = symbol<Function>(library, name)) return function;
  }
  return nullptr;
}

std::string printable(const char* text) {
  std::string out(text);
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) c = '?';
  }
  return out;
}

}  // namespace

struct NvmlSession::Api {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*max_clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  // Optional: a driver without one only lacks that reading.
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*clocks_event_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*handle_by_uuid)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned int*, unsigned int*) = nullptr;
  NvmlReturn (*is_mig_device)(NvmlDevice, unsigned int*) = nullptr;
  ProcessQuery compute_processes = nullptr;
  ProcessQuery mps_processes = nullptr;
  NvmlReturn (*process_name)(unsigned int, char*, unsigned int) = nullptr;

  void load_optional(void* library) {
    temperature = symbol<decltype(temperature)>(library, "nvmlDeviceGetTemperature");
    power_usage = symbol<decltype(power_usage)>(library, "nvmlDeviceGetPowerUsage");
    // NVML 12.3 renamed the throttle reasons "clocks event reasons"; same bits, same call.
    clocks_event_reasons = first_symbol<decltype(clocks_event_reasons)>(
        library,
        {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
    uuid = symbol<decltype(uuid)>(library, "nvmlDeviceGetUUID");
    handle_by_uuid = symbol<decltype(handle_by_uuid)>(library, "nvmlDeviceGetHandleByUUID");
    mig_mode = symbol<decltype(mig_mode)>(library, "nvmlDeviceGetMigMode");
    is_mig_device = symbol<decltype(is_mig_device)>(library, "nvmlDeviceIsMigDeviceHandle");
    compute_processes = first_symbol<ProcessQuery>(
        library,
        {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
    mps_processes =
        first_symbol<ProcessQuery>(library, {"nvmlDeviceGetMPSComputeRunningProcesses_v3",
                                             "nvmlDeviceGetMPSComputeRunningProcesses_v2"});
    process_name = symbol<decltype(process_name)>(library, "nvmlSystemGetProcessName");
  }
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
  api_->load_optional(library_);
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
  process_device_ = device;
  status_ = "ok";
}

NvmlSession::~NvmlSession() {
  if (initialised_) api_->shutdown();
  if (library_ != nullptr) dlclose(library_);
}

void NvmlSession::fail(const std::string& why) {
  device_ = nullptr;
  process_device_ = nullptr;
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

std::optional<std::uint32_t> NvmlSession::temperature_c() const {
  unsigned int celsius = 0;
  if (!available() || !api_->temperature ||
      api_->temperature(device_, kNvmlTemperatureGpu, &celsius) != kNvmlSuccess) {
    return std::nullopt;
  }
  return celsius;
}

std::optional<std::uint32_t> NvmlSession::power_mw() const {
  unsigned int milliwatts = 0;
  if (!available() || !api_->power_usage ||
      api_->power_usage(device_, &milliwatts) != kNvmlSuccess) {
    return std::nullopt;
  }
  return milliwatts;
}

std::optional<std::uint64_t> NvmlSession::clocks_event_reasons() const {
  unsigned long long reasons = 0;
  if (!available() || !api_->clocks_event_reasons ||
      api_->clocks_event_reasons(device_, &reasons) != kNvmlSuccess) {
    return std::nullopt;
  }
  return reasons;
}

std::optional<std::string> NvmlSession::uuid() const {
  char text[kNvmlUuidBytes] = {};
  if (!available() || !api_->uuid || api_->uuid(device_, text, sizeof text) != kNvmlSuccess) {
    return std::nullopt;
  }
  return printable(text);
}

std::optional<bool> NvmlSession::mig_enabled() const {
  unsigned int current = 0;
  unsigned int pending = 0;
  if (!available() || !api_->mig_mode ||
      api_->mig_mode(device_, &current, &pending) != kNvmlSuccess) {
    return std::nullopt;
  }
  return current == kNvmlMigEnabled;
}

bool NvmlSession::use_mig_instance(const std::string& mig_uuid) {
  if (!available() || !api_->handle_by_uuid || !api_->is_mig_device) return false;
  NvmlDevice instance = nullptr;
  unsigned int is_mig = 0;
  if (api_->handle_by_uuid(mig_uuid.c_str(), &instance) != kNvmlSuccess ||
      api_->is_mig_device(instance, &is_mig) != kNvmlSuccess || !is_mig) {
    return false;
  }
  process_device_ = instance;
  mig_instance_ = mig_uuid;
  return true;
}

std::optional<std::vector<GpuProcess>> NvmlSession::processes(bool mps) const {
  const ProcessQuery query = mps ? api_->mps_processes : api_->compute_processes;
  if (!available() || !query) return std::nullopt;
  std::vector<NvmlProcessInfo> infos;
  for (int attempt = 0; attempt < kProcessListAttempts; ++attempt) {
    unsigned int count = static_cast<unsigned int>(infos.size());
    const NvmlReturn rc = query(process_device_, &count, infos.empty() ? nullptr : infos.data());
    if (rc == kNvmlSuccess) {
      std::vector<GpuProcess> out;
      for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
        GpuProcess process;
        process.pid = infos[i].pid;
        if (infos[i].used_gpu_memory != kNvmlValueNotAvailable) {
          process.used_memory_bytes = infos[i].used_gpu_memory;
        }
        out.push_back(process);
      }
      return out;
    }
    if (rc != kNvmlInsufficientSize) return std::nullopt;
    infos.resize(count + 4);  // room for processes that start meanwhile
  }
  return std::nullopt;
}

std::optional<std::vector<GpuProcess>> NvmlSession::compute_processes() const {
  return processes(false);
}

std::optional<std::vector<GpuProcess>> NvmlSession::mps_processes() const {
  return processes(true);
}

std::string NvmlSession::process_name(std::uint32_t pid) const {
  char name[kNvmlProcessNameBytes] = {};
  if (!available() || !api_->process_name ||
      api_->process_name(pid, name, sizeof name - 1) != kNvmlSuccess) {
    return "";
  }
  return printable(name);
}

std::optional<std::vector<GpuProcess>> processes_on(const NvmlSession& nvml) {
  auto compute = nvml.compute_processes();
  if (!compute) return std::nullopt;
  if (const auto clients = nvml.mps_processes()) {
    compute->insert(compute->end(), clients->begin(), clients->end());
  }
  return compute;
}

}  // namespace memtopo
