#pragma once
// The interface between the p2p probe family and a set of devices (real GPUs or simulated ones):
// GPU a's SMs or copy engines working on GPU b's memory, or on the host's pinned memory. Beside
// Backend (one device), never instead of it: a multi-device run opens one Backend per GPU for
// the per-GPU discovery and one PeerBackend over all of them for the pairs.
//
// GPUs are numbered 0 .. device_count() - 1 in the order the run lists them (for a GPU backend,
// position in --device's list, not necessarily the CUDA index; cuda_index() maps).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memtopo {

// A memory location that is not a GPU's: the host's pinned memory (cudaHostAlloc).
inline constexpr int kHostMemory = -1;

enum class LinkKind { none, nvlink, pcie, unknown };
const char* to_string(LinkKind kind);

// How two endpoints are connected, as the API (NVML) or the simulated description says.
struct PeerLink {
  LinkKind kind = LinkKind::unknown;
  std::uint32_t nvlink_count = 0;     // active NVLinks between the two GPUs
  std::uint32_t nvlink_version = 0;   // NVML's nvmlDeviceGetNvLinkVersion value, as reported
  bool through_switch = false;        // the NVLinks end at NVSwitches that reach the peer
  std::uint32_t pcie_generation = 0;  // current PCIe link of the GPU (the host link)
  std::uint32_t pcie_width = 0;
  std::string pcie_path;  // NVML's common ancestor of two GPUs on PCIe: "same board", "switch", ...
  std::string note;       // why fields are missing (NVML unavailable, ...)
};

// A dependent pointer chase by one thread of `reader`'s SM over a chain in `memory`'s memory
// (a GPU index or kHostMemory): every load needs the previous one's value, so each sample is
// the round trip of the link plus the remote memory.
struct RemoteChaseSpec {
  int reader = 0;
  int memory = 0;
  std::uint64_t footprint_bytes = 0;  // the chain's span; beyond the memory's L2
  std::uint32_t stride_bytes = 0;     // between chain elements (a random permutation of them)
  std::uint32_t loads_per_sample = 0;
  std::uint32_t samples = 0;  // timed groups of loads_per_sample, after one warm group
  std::uint64_t seed = 0;
  // One thread on every SM of the reader in turn, each continuing the chain where the last
  // stopped, with its own warm group and `samples` timed ones: where an SM sits decides how far
  // its loads travel (an H200 reached a peer's page in 794-807 ns from half its SMs and 845-858
  // from the other half). false: one thread on one SM.
  bool every_sm = false;
};

struct RemoteChaseResult {
  std::vector<double> cycles_per_load;      // one per sample, in `reader`'s SM cycles
  std::vector<double> ns_per_load;          // the same samples by the global timer
  double sm_clock_khz = 0;                  // cycles / ns over all samples
  std::vector<std::uint32_t> sm_of_sample;  // the %smid that timed each sample (every_sm only)
};

enum class TransferEngine { sm, copy_engine };
// The launch shape of an SM read: what it does with what it loads, and how many loads each thread
// keeps in flight. `registers` and `actor_memory`: 2 blocks of 1024 threads per SM, 4 loads in
// flight per thread, the values folded in registers or stored into a buffer of the acting GPU's
// memory (an SM copy). `actor_memory_deep`: nvbandwidth's SM copy, 1 block of 512 threads per
// SM, 12 loads in flight per thread, stored into the acting GPU's memory. On one pair of H200s
// the three read within 0.05 %; on another the first two read 0.2-0.4 % below nvbandwidth's
// (docs/results/nvidia-h200-x2/2026-11-29_87a53cb-p2p/notes.md). SM writes and copies take
// `registers`.
enum class SmReadShape { registers, actor_memory, actor_memory_deep };
inline constexpr SmReadShape kSmReadShapes[] = {SmReadShape::registers, SmReadShape::actor_memory,
                                                SmReadShape::actor_memory_deep};
// read: data moves from `memory` to `actor` (SM loads of the remote memory; a copy memory ->
// actor). write: from `actor` to `memory` (SM stores; a copy actor -> memory).
enum class TransferDirection { read, write };
const char* to_string(TransferEngine engine);
const char* to_string(TransferDirection direction);
const char* to_string(SmReadShape shape);

struct TransferSpec {
  int actor = 0;
  int memory = 0;  // a GPU index other than actor, or kHostMemory
  TransferEngine engine = TransferEngine::sm;
  TransferDirection direction = TransferDirection::read;
  std::uint64_t bytes = 0;  // the buffer: what one pass moves
  std::uint32_t warmups = 0;  // untimed runs of one pass before the repetitions
  std::uint32_t repetitions = 0;
  // Passes over the buffer in each timed repetition: an SM launch loops over it `passes` times,
  // copies run `passes` times back to back. A launch's or copy's fixed cost (~13 us on NVLink)
  // is then paid once per launch, or once per copy of `bytes`, not per pass of a short launch.
  std::uint32_t passes = 1;  // last: the older brace-initialised specs keep their meaning
  SmReadShape read_shape = SmReadShape::registers;
};

struct TransferResult {
  std::vector<double> seconds;  // one per timed repetition
  std::uint64_t bytes = 0;      // moved by each: bytes x passes
  std::string note;             // e.g. "staged through the host: no peer access"
};

// A request the devices cannot run (an index out of range, SM access without peer access).
class PeerExperimentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws PeerExperimentError for a transfer no backend can run: no pass over the buffer.
void check_transfer(const TransferSpec& spec);

// What a run asks of its GPUs directly, as the API (or the description) tells it: their
// number, access and links. No experiment: those go through the run engine
// (RunContext::run_remote_chase, run_transfer), which hands out only this part.
class PeerDevices {
 public:
  virtual ~PeerDevices() = default;
  virtual std::string_view kind() const = 0;  // "cuda" or "sim"
  virtual int device_count() const = 0;
  // The index the user knows the GPU by (the CUDA index, or the simulated GPU's number).
  virtual int cuda_index(int device) const { return device; }
  // Whether `actor`'s SMs can load and store `memory` directly: cudaDeviceCanAccessPeer for a
  // GPU, mapped pinned memory for kHostMemory.
  virtual bool can_access(int actor, int memory) = 0;
  // The link between two GPUs, or (b == kHostMemory) between GPU a and the host.
  virtual PeerLink link(int a, int b) = 0;
};

// The GPUs with their experiments: what the engine holds (RunContext::peer_backend).
class PeerBackend : public PeerDevices {
 public:
  // Throws PeerExperimentError when !can_access(reader, memory).
  virtual RemoteChaseResult run_remote_chase(const RemoteChaseSpec& spec) = 0;
  // SM transfers throw PeerExperimentError without access; copies run without it (staged).
  virtual TransferResult run_transfer(const TransferSpec& spec) = 0;
};

// `devices` of `backend` (its indices, in this order) as positions 0 .. n-1: what --device 2,1
// needs of a backend that numbers every GPU it has. Indices must be valid for `backend`.
std::unique_ptr<PeerBackend> select_peer_devices(std::unique_ptr<PeerBackend> backend,
                                                 std::vector<int> devices);

}  // namespace memtopo
