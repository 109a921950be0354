#pragma once
// The links between GPUs and to the host as NVML reports them: active NVLinks whose remote end
// is the peer GPU (count and version), else the PCIe path between the two; the current PCIe
// link of a GPU. NVML is loaded at run time (as nvml_session.hpp does); without it every link
// is "unknown" with the reason in its note.
#include <memory>
#include <string>

#include "backend/p2p.hpp"

namespace memtopo {

// A GPU's PCI address as cudaDeviceGetPCIBusId writes it, and its parts.
struct PciAddress {
  std::string bus_id;  // "0000:17:00.0"
  unsigned int domain = 0;
  unsigned int bus = 0;
  unsigned int device = 0;
};

class NvmlLinks {
 public:
  NvmlLinks();  // never throws; on failure every answer says why
  ~NvmlLinks();
  NvmlLinks(const NvmlLinks&) = delete;
  NvmlLinks& operator=(const NvmlLinks&) = delete;

  PeerLink between(const PciAddress& a, const PciAddress& b) const;
  PeerLink to_host(const PciAddress& gpu) const;

 private:
  struct Api;
  struct NvLinkCount {
    unsigned int links = 0;
    unsigned int version = 0;
  };
  void* handle(const PciAddress& gpu) const;
  // Active NVLinks of `device` whose remote end is `peer`, or (peer null) an NVSwitch.
  NvLinkCount count_nvlinks(void* device, const PciAddress* peer) const;

  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  bool initialised_ = false;
  std::string status_;
};

}  // namespace memtopo
