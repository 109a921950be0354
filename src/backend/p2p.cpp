#include "backend/p2p.hpp"

#include <utility>

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

const char* to_string(SmReadShape shape) {
  switch (shape) {
    case SmReadShape::registers:
      return "registers";
    case SmReadShape::actor_memory:
      return "actor_memory";
    case SmReadShape::actor_memory_deep:
      return "actor_memory_deep";
  }
  return "?";
}

void check_transfer(const TransferSpec& spec) {
  if (spec.passes == 0) throw PeerExperimentError("a transfer makes at least one pass");
  const bool copies_in = spec.read_shape != SmReadShape::registers;
  if (copies_in &&
      (spec.engine != TransferEngine::sm || spec.direction != TransferDirection::read)) {
    throw PeerExperimentError("only an SM read copies into the acting GPU's memory");
  }
}

namespace {

class SelectedPeers final : public PeerBackend {
 public:
  SelectedPeers(std::unique_ptr<PeerBackend> backend, std::vector<int> devices)
      : backend_(std::move(backend)), devices_(std::move(devices)) {}

  std::string_view kind() const override { return backend_->kind(); }
  int device_count() const override { return static_cast<int>(devices_.size()); }
  int cuda_index(int device) const override { return backend_->cuda_index(map(device)); }
  bool can_access(int actor, int memory) override {
    return backend_->can_access(map(actor), map(memory));
  }
  PeerLink link(int a, int b) override { return backend_->link(map(a), map(b)); }
  RemoteChaseResult run_remote_chase(const RemoteChaseSpec& spec) override {
    RemoteChaseSpec mapped = spec;
    mapped.reader = map(spec.reader);
    mapped.memory = map(spec.memory);
    return backend_->run_remote_chase(mapped);
  }
  TransferResult run_transfer(const TransferSpec& spec) override {
    TransferSpec mapped = spec;
    mapped.actor = map(spec.actor);
    mapped.memory = map(spec.memory);
    return backend_->run_transfer(mapped);
  }

 private:
  int map(int device) const {
    if (device == kHostMemory) return kHostMemory;
    if (device < 0 || device >= device_count()) {
      throw PeerExperimentError("no device at position " + std::to_string(device));
    }
    return devices_[static_cast<std::size_t>(device)];
  }

  std::unique_ptr<PeerBackend> backend_;
  std::vector<int> devices_;
};

}  // namespace

std::unique_ptr<PeerBackend> select_peer_devices(std::unique_ptr<PeerBackend> backend,
                                                 std::vector<int> devices) {
  return std::make_unique<SelectedPeers>(std::move(backend), std::move(devices));
}

}  // namespace memtopo
