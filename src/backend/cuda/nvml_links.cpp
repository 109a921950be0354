#include "backend/cuda/nvml_links.hpp"

#include <dlfcn.h>

namespace memtopo {
namespace {

// The pieces of the NVML C ABI used here (values and layouts from the NVML API reference),
// declared locally: the build needs no nvml.h.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr unsigned int kNvmlFeatureEnabled = 1;  // NVML_FEATURE_ENABLED
// Links are numbered 0 .. NVML_NVLINK_MAX_LINKS - 1 (18 on Hopper); a query past the last one
// fails, which ends nothing: every index is asked.
constexpr unsigned int kMaxNvLinks = 32;
constexpr unsigned int kPciBusIdLegacyBytes = 16;  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
constexpr unsigned int kPciBusIdBytes = 32;        // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
constexpr int kNvLinkRemoteSwitch = 2;             // NVML_NVLINK_DEVICE_TYPE_SWITCH

struct NvmlPciInfo {  // nvmlPciInfo_t
  char bus_id_legacy[kPciBusIdLegacyBytes];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[kPciBusIdBytes];
};

// nvmlGpuTopologyLevel_t: the closest common ancestor of two GPUs on the PCIe tree.
const char* topology_level_text(int level) {
  switch (level) {
    case 0:
      return "same board";
    case 10:
      return "one PCIe switch";
    case 20:
      return "several PCIe switches";
    case 30:
      return "PCIe host bridge";
    case 40:
      return "same NUMA node";
    case 50:
      return "across CPU sockets";
    default:
      return "unknown PCIe path";
  }
}

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

}  // namespace

struct NvmlLinks::Api {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*nvlink_state)(NvmlDevice, unsigned int, unsigned int*) = nullptr;
  NvmlReturn (*nvlink_version)(NvmlDevice, unsigned int, unsigned int*) = nullptr;
  NvmlReturn (*nvlink_remote_pci)(NvmlDevice, unsigned int, NvmlPciInfo*) = nullptr;
  NvmlReturn (*nvlink_remote_type)(NvmlDevice, unsigned int, int*) = nullptr;
  NvmlReturn (*pcie_generation)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*pcie_width)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*common_ancestor)(NvmlDevice, NvmlDevice, int*) = nullptr;
};

NvmlLinks::NvmlLinks() : api_(std::make_unique<Api>()) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    status_ = "NVML unavailable (cannot load libnvidia-ml.so.1)";
    return;
  }
  api_->init = symbol<decltype(api_->init)>(library_, "nvmlInit_v2");
  api_->shutdown = symbol<decltype(api_->shutdown)>(library_, "nvmlShutdown");
  api_->handle_by_pci_bus_id =
      symbol<decltype(api_->handle_by_pci_bus_id)>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  api_->nvlink_state = symbol<decltype(api_->nvlink_state)>(library_, "nvmlDeviceGetNvLinkState");
  api_->nvlink_version =
      symbol<decltype(api_->nvlink_version)>(library_, "nvmlDeviceGetNvLinkVersion");
  api_->nvlink_remote_pci =
      symbol<decltype(api_->nvlink_remote_pci)>(library_, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  api_->nvlink_remote_type =
      symbol<decltype(api_->nvlink_remote_type)>(library_, "nvmlDeviceGetNvLinkRemoteDeviceType");
  api_->pcie_generation =
      symbol<decltype(api_->pcie_generation)>(library_, "nvmlDeviceGetCurrPcieLinkGeneration");
  api_->pcie_width = symbol<decltype(api_->pcie_width)>(library_, "nvmlDeviceGetCurrPcieLinkWidth");
  api_->common_ancestor =
      symbol<decltype(api_->common_ancestor)>(library_, "nvmlDeviceGetTopologyCommonAncestor");
  if (!api_->init || !api_->shutdown || !api_->handle_by_pci_bus_id) {
    status_ = "NVML lacks an expected function (driver too old?)";
    return;
  }
  if (api_->init() != kNvmlSuccess) {
    status_ = "nvmlInit failed";
    return;
  }
  initialised_ = true;
}

NvmlLinks::~NvmlLinks() {
  if (initialised_) api_->shutdown();
  if (library_ != nullptr) dlclose(library_);
}

void* NvmlLinks::handle(const PciAddress& gpu) const {
  if (!initialised_) return nullptr;
  NvmlDevice device = nullptr;
  if (api_->handle_by_pci_bus_id(gpu.bus_id.c_str(), &device) != kNvmlSuccess) return nullptr;
  return device;
}

NvmlLinks::NvLinkCount NvmlLinks::count_nvlinks(void* device, const PciAddress* peer) const {
  NvLinkCount count;
  if (!api_->nvlink_state || !api_->nvlink_remote_pci) return count;
  for (unsigned int index = 0; index < kMaxNvLinks; ++index) {
    unsigned int active = 0;
    if (api_->nvlink_state(device, index, &active) != kNvmlSuccess ||
        active != kNvmlFeatureEnabled) {
      continue;
    }
    if (peer != nullptr) {
      NvmlPciInfo remote{};
      if (api_->nvlink_remote_pci(device, index, &remote) != kNvmlSuccess ||
          remote.domain != peer->domain || remote.bus != peer->bus ||
          remote.device != peer->device) {
        continue;
      }
    } else {
      int type = -1;
      if (!api_->nvlink_remote_type ||
          api_->nvlink_remote_type(device, index, &type) != kNvmlSuccess ||
          type != kNvLinkRemoteSwitch) {
        continue;
      }
    }
    ++count.links;
    unsigned int version = 0;
    if (api_->nvlink_version && api_->nvlink_version(device, index, &version) == kNvmlSuccess) {
      count.version = version;
    }
  }
  return count;
}

PeerLink NvmlLinks::between(const PciAddress& a, const PciAddress& b) const {
  PeerLink link;
  NvmlDevice device_a = handle(a);
  NvmlDevice device_b = handle(b);
  if (device_a == nullptr || device_b == nullptr) {
    link.note = status_.empty() ? "NVML does not know the GPU " + a.bus_id : status_;
    return link;
  }
  const NvLinkCount direct = count_nvlinks(device_a, &b);
  if (direct.links > 0) {
    link.kind = LinkKind::nvlink;
    link.nvlink_count = direct.links;
    link.nvlink_version = direct.version;
    return link;
  }
  // NVLinks that end at NVSwitches reach every GPU on the switches: both GPUs need some.
  const NvLinkCount to_switch_a = count_nvlinks(device_a, nullptr);
  const NvLinkCount to_switch_b = count_nvlinks(device_b, nullptr);
  if (to_switch_a.links > 0 && to_switch_b.links > 0) {
    link.kind = LinkKind::nvlink;
    link.nvlink_count = to_switch_a.links;
    link.nvlink_version = to_switch_a.version;
    link.through_switch = true;
    return link;
  }
  // No NVLink to the peer (it may still be reached through an NVSwitch, whose remote PCI
  // device is the switch): the PCIe path.
  link.kind = LinkKind::pcie;
  int level = -1;
  if (api_->common_ancestor && api_->common_ancestor(device_a, device_b, &level) == kNvmlSuccess) {
    link.pcie_path = topology_level_text(level);
  }
  return link;
}

PeerLink NvmlLinks::to_host(const PciAddress& gpu) const {
  PeerLink link;
  NvmlDevice device = handle(gpu);
  if (device == nullptr) {
    link.note = status_.empty() ? "NVML does not know the GPU " + gpu.bus_id : status_;
    return link;
  }
  link.kind = LinkKind::pcie;
  if (api_->pcie_generation) api_->pcie_generation(device, &link.pcie_generation);
  if (api_->pcie_width) api_->pcie_width(device, &link.pcie_width);
  return link;
}

}  // namespace memtopo
