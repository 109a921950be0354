#include "backend/p2p.hpp"

namespace memtopo {

const char* to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::none:
      return "none";
    case LinkKind::nvlink:
      return "nvlink";
    case LinkKind::pcie:
      return "pcie";
    case LinkKind::unknown:
      return "unknown";
  }
  return "unknown";
}

const char* to_string(TransferEngine engine) {
  return engine == TransferEngine::sm ? "sm" : "copy_engine";
}

const char* to_string(TransferDirection direction) {
  return direction == TransferDirection::read ? "read" : "write";
}

}  // namespace memtopo
