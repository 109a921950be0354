// The p2p interface on real GPUs: peer access, NVML links, remote chases, SM streams and copies
// between GPUs and with the host's pinned memory.
#include "backend/cuda/cuda_peer_backend.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/chain.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/cuda_event.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/nvml_links.hpp"
#include "backend/cuda/p2p_kernels.hpp"
#include "backend/cuda/queued_timing.hpp"

namespace memtopo {
namespace {

constexpr int kPciBusIdBytes = 64;
constexpr double kNsPerMillisecond = 1e6;

// Makes `device` current for its lifetime and restores the previous one: the per-GPU backends
// set their device before each call, but nothing here may leave another current behind.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    CUDA_CALL(cudaGetDevice(&previous_));
    CUDA_CALL(cudaSetDevice(device));
  }
  ~ScopedDevice() { (void)cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

// Pinned, mapped host memory every GPU can address (cudaHostAllocPortable | Mapped).
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
    CUDA_CALL(cudaHostAlloc(&data_, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
  }
  ~PinnedBuffer() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Memory at one location: a GPU's (allocated on it) or the host's pinned memory.
class LocatedBuffer {
 public:
  LocatedBuffer(int cuda_device, std::size_t bytes) {
    if (cuda_device == kHostMemory) {
      host_.emplace(bytes);
      std::memset(host_->data(), 0, bytes);
    } else {
      ScopedDevice on(cuda_device);
      device_ = DeviceBuffer<unsigned char>(bytes);
      device_.fill_zero();
    }
  }
  void* data() const { return host_ ? host_->data() : device_.data(); }
  bool on_host() const { return host_.has_value(); }

 private:
  std::optional<PinnedBuffer> host_;
  DeviceBuffer<unsigned char> device_;
};

class Stream {
 public:
  Stream() { CUDA_CALL(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

PciAddress pci_address(int device) {
  PciAddress address;
  char bus_id[kPciBusIdBytes] = {};
  CUDA_CALL(cudaDeviceGetPCIBusId(bus_id, kPciBusIdBytes, device));
  address.bus_id = bus_id;
  int value = 0;
  CUDA_CALL(cudaDeviceGetAttribute(&value, cudaDevAttrPciDomainId, device));
  address.domain = static_cast<unsigned int>(value);
  CUDA_CALL(cudaDeviceGetAttribute(&value, cudaDevAttrPciBusId, device));
  address.bus = static_cast<unsigned int>(value);
  CUDA_CALL(cudaDeviceGetAttribute(&value, cudaDevAttrPciDeviceId, device));
  address.device = static_cast<unsigned int>(value);
  return address;
}

class CudaPeerBackend final : public PeerBackend {
 public:
  explicit CudaPeerBackend(std::vector<int> cuda_indices) : cuda_(std::move(cuda_indices)) {
    const int visible = cuda_device_count();
    for (const int index : cuda_) {
      if (index < 0 || index >= visible) {
        throw NoDeviceError("CUDA device " + std::to_string(index) + " does not exist (" +
                            std::to_string(visible) + " visible)");
      }
      pci_.push_back(pci_address(index));
      int sm_count = 0;
      CUDA_CALL(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, index));
      sm_count_.push_back(sm_count);
    }
    enable_peer_access();
  }

  std::string_view kind() const override { return "cuda"; }
  int device_count() const override { return static_cast<int>(cuda_.size()); }
  int cuda_index(int device) const override { return cuda_.at(static_cast<std::size_t>(device)); }

  bool can_access(int actor, int memory) override {
    check(actor, memory);
    if (memory == kHostMemory) {
      int maps = 0;
      int unified = 0;
      CUDA_CALL(cudaDeviceGetAttribute(&maps, cudaDevAttrCanMapHostMemory, cuda_index(actor)));
      CUDA_CALL(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, cuda_index(actor)));
      return maps != 0 && unified != 0;
    }
    int can = 0;
    CUDA_CALL(cudaDeviceCanAccessPeer(&can, cuda_index(actor), cuda_index(memory)));
    return can != 0;
  }

  PeerLink link(int a, int b) override {
    check(a, b);
    if (b == kHostMemory) return nvml_.to_host(pci_[static_cast<std::size_t>(a)]);
    return nvml_.between(pci_[static_cast<std::size_t>(a)], pci_[static_cast<std::size_t>(b)]);
  }

  RemoteChaseResult run_remote_chase(const RemoteChaseSpec& spec) override;
  TransferResult run_transfer(const TransferSpec& spec) override;

 private:
  void check(int actor, int memory) const {
    const auto valid = [this](int device) { return device >= 0 && device < device_count(); };
    if (!valid(actor) || (!valid(memory) && memory != kHostMemory) || actor == memory) {
      throw PeerExperimentError("no such pair of devices: " + std::to_string(actor) + ", " +
                                std::to_string(memory));
    }
  }

  int location(int memory) const {
    return memory == kHostMemory ? kHostMemory : cuda_index(memory);
  }

  void enable_peer_access() {
    for (int a = 0; a < device_count(); ++a) {
      for (int b = 0; b < device_count(); ++b) {
        if (a == b || !can_access(a, b)) continue;
        ScopedDevice on(cuda_index(a));
        const cudaError_t result = cudaDeviceEnablePeerAccess(cuda_index(b), 0);
        if (result == cudaErrorPeerAccessAlreadyEnabled) {
          (void)cudaGetLastError();  // clears the error the call recorded
        } else {
          CUDA_CALL(result);
        }
      }
    }
  }

  TransferResult run_copies(const TransferSpec& spec, void* actor_data, void* memory_data);

  std::vector<int> cuda_;
  std::vector<PciAddress> pci_;
  std::vector<int> sm_count_;
  NvmlLinks nvml_;
};

RemoteChaseResult CudaPeerBackend::run_remote_chase(const RemoteChaseSpec& spec) {
  check(spec.reader, spec.memory);
  if (!can_access(spec.reader, spec.memory)) {
    throw PeerExperimentError("the reader cannot access this memory");
  }
  ChaseSpec chain_spec;
  chain_spec.path = LoadPath::cg;
  chain_spec.footprint_bytes = spec.footprint_bytes;
  chain_spec.stride_bytes = spec.stride_bytes;
  chain_spec.order = ChaseOrder::random_permutation;
  chain_spec.seed = spec.seed;
  const std::vector<std::uint32_t> chain = build_chain(chain_spec);

  LocatedBuffer memory(location(spec.memory), chain.size() * sizeof(std::uint32_t));
  CUDA_CALL(cudaMemcpy(memory.data(), chain.data(), chain.size() * sizeof(std::uint32_t),
                       cudaMemcpyDefault));
  ScopedDevice on(cuda_index(spec.reader));
  const std::size_t slots =
      spec.every_sm ? std::size_t{kRemoteChaseMaxSms} * spec.samples : std::size_t{spec.samples};
  DeviceBuffer<std::uint64_t> cycles(slots);
  DeviceBuffer<std::uint64_t> ns(slots);
  DeviceBuffer<std::uint32_t> sink(1);
  Stream stream;
  RemoteChaseResult result;
  std::size_t samples = spec.samples;
  if (spec.every_sm) {
    DeviceBuffer<RemoteChaseTurns> turns(1);
    DeviceBuffer<std::uint32_t> sm_of_turn(kRemoteChaseMaxSms);
    CUDA_CALL(cudaMemsetAsync(turns.data(), 0, sizeof(RemoteChaseTurns), stream.get()));
    launch_remote_chase_every_sm(static_cast<const std::uint32_t*>(memory.data()),
                                 spec.loads_per_sample, spec.samples,
                                 sm_count_[static_cast<std::size_t>(spec.reader)], turns.data(),
                                 cycles.data(), ns.data(), sm_of_turn.data(), stream.get());
    CUDA_CALL(cudaStreamSynchronize(stream.get()));
    RemoteChaseTurns taken{};
    CUDA_CALL(cudaMemcpy(&taken, turns.data(), sizeof taken, cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> turn_sm(kRemoteChaseMaxSms);
    sm_of_turn.download(turn_sm);
    samples = static_cast<std::size_t>(taken.tickets) * spec.samples;
    for (std::size_t i = 0; i < samples; ++i)
      result.sm_of_sample.push_back(turn_sm[i / spec.samples]);
  } else {
    launch_remote_chase(static_cast<const std::uint32_t*>(memory.data()), spec.loads_per_sample,
                        spec.samples, cycles.data(), ns.data(), sink.data(), stream.get());
    CUDA_CALL(cudaStreamSynchronize(stream.get()));
  }
  std::vector<std::uint64_t> cycle_counts(slots);
  std::vector<std::uint64_t> ns_counts(slots);
  cycles.download(cycle_counts);
  ns.download(ns_counts);

  double total_cycles = 0;
  double total_ns = 0;
  for (std::size_t i = 0; i < samples; ++i) {
    result.cycles_per_load.push_back(static_cast<double>(cycle_counts[i]) / spec.loads_per_sample);
    result.ns_per_load.push_back(static_cast<double>(ns_counts[i]) / spec.loads_per_sample);
    total_cycles += static_cast<double>(cycle_counts[i]);
    total_ns += static_cast<double>(ns_counts[i]);
  }
  result.sm_clock_khz = total_ns > 0 ? total_cycles / total_ns * kNsPerMillisecond : 0;
  return result;
}

TransferResult CudaPeerBackend::run_transfer(const TransferSpec& spec) {
  check_transfer(spec);
  check(spec.actor, spec.memory);
  const bool sm = spec.engine == TransferEngine::sm;
  if (sm && !can_access(spec.actor, spec.memory)) {
    throw PeerExperimentError("the actor's SMs cannot access this memory");
  }
  LocatedBuffer memory(location(spec.memory), spec.bytes);
  const bool copy_in = spec.read_shape != SmReadShape::registers;
  const bool deep = spec.read_shape == SmReadShape::actor_memory_deep;
  LocatedBuffer actor(cuda_index(spec.actor), sm && !copy_in ? sizeof(uint4) : spec.bytes);
  if (!sm) return run_copies(spec, actor.data(), memory.data());

  ScopedDevice on(cuda_index(spec.actor));
  Stream stream;
  const bool write = spec.direction == TransferDirection::write;
  const int sm_count = sm_count_[static_cast<std::size_t>(spec.actor)];
  const auto launch = [&](std::uint32_t passes) {
    launch_remote_stream(memory.data(), spec.bytes, passes, write, sm_count, actor.data(),
                         stream.get(), copy_in ? actor.data() : nullptr, deep);
  };
  TransferResult result;
  result.bytes = spec.bytes * spec.passes;
  // A warm-up of one pass: the repetitions follow it back to back (queued_timing.hpp).
  result.seconds = time_queued(
      stream.get(), spec.warmups, spec.repetitions, [&] { launch(1); },
      [&] { launch(spec.passes); });
  return result;
}

TransferResult CudaPeerBackend::run_copies(const TransferSpec& spec, void* actor_data,
                                           void* memory_data) {
  ScopedDevice on(cuda_index(spec.actor));
  Stream stream;
  const bool read = spec.direction == TransferDirection::read;
  void* destination = read ? actor_data : memory_data;
  const void* source = read ? memory_data : actor_data;
  const auto copy_once = [&] {
    if (spec.memory == kHostMemory) {
      CUDA_CALL(cudaMemcpyAsync(destination, source, spec.bytes,
                                read ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                stream.get()));
    } else {
      const int actor = cuda_index(spec.actor);
      const int peer = cuda_index(spec.memory);
      CUDA_CALL(cudaMemcpyPeerAsync(destination, read ? actor : peer, source, read ? peer : actor,
                                    spec.bytes, stream.get()));
    }
  };
  const auto copy = [&] {
    for (std::uint32_t pass = 0; pass < spec.passes; ++pass) copy_once();
  };
  TransferResult result;
  result.bytes = spec.bytes * spec.passes;
  if (spec.memory != kHostMemory && !can_access(spec.actor, spec.memory)) {
    result.note = "staged through the host: no peer access";
  }
  result.seconds = time_queued(stream.get(), spec.warmups, spec.repetitions, copy_once, copy);
  return result;
}

}  // namespace

int cuda_device_count() {
  int count = 0;
  const cudaError_t result = cudaGetDeviceCount(&count);
  if (result != cudaSuccess || count == 0) {
    throw NoDeviceError(std::string("no CUDA device visible (") +
                        (result != cudaSuccess ? cudaGetErrorString(result) : "0 devices") +
                        "): check nvidia-smi and CUDA_VISIBLE_DEVICES; --sim FILE runs on a "
                        "simulated device");
  }
  return count;
}

std::unique_ptr<PeerBackend> make_cuda_peer_backend(const std::vector<int>& cuda_indices) {
  return std::make_unique<CudaPeerBackend>(cuda_indices);
}

}  // namespace memtopo
