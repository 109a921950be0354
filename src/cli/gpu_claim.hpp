#pragma once
// A GPU that is not memtopo's alone gives wrong answers silently (two runs at once: one found an
// L1 of 163,904 B instead of 245,760 B). Before the first probe memtopo takes the GPU's lock
// (another memtopo: wait, or give up after --wait) and looks at NVML's list of the processes on
// the GPU: another one stops the run unless --allow-shared, which marks every result.
#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "cli/gpu_lock.hpp"
#include "cli/options.hpp"
#include "model/topology.hpp"

namespace memtopo {

// What memtopo holds of the GPU for the run.
struct GpuClaim {
  std::unique_ptr<GpuLock> lock;
};

// Takes the lock of the GPU `uuid` into `claim` (waiting as --wait says, telling `err` while it
// waits). Throws GpuBusyError or LockWaitInterrupted (gpu_lock.hpp).
void lock_gpu(const std::string& uuid, const Options& options, std::ostream& err, GpuClaim& claim);

// What to do about the other processes on the GPU, from the device's conditions.
struct SharingVerdict {
  bool refuse = false;  // stop before the first probe with exit_code::gpu_in_use
  bool shared = false;  // go on, marking the run shared
  std::vector<GpuProcess> others;
  std::string message;  // for stderr: why memtopo refuses, or what it notes
  std::string warning;  // for the report
};

SharingVerdict judge_sharing(const DeviceFacts& facts,
                             const std::optional<DeviceConditions>& conditions, bool allow_shared);

// The other processes on the GPU after they had `settle` to go: a memtopo that just released
// the lock may still be listed while its context is torn down.
std::optional<DeviceConditions> settled_conditions(Backend& backend,
                                                   std::chrono::duration<double> settle);

// Takes the lock's outcome and the verdict into the run (run.gpu_lock, shared_gpu, warnings).
void record_claim(const GpuClaim& claim, const SharingVerdict& verdict, RunInfo& run,
                  std::vector<std::string>& warnings);

// Before the first probe on a GPU: judges the other processes on it (after they had a moment to
// go) and records the verdict into `topology`. Returns exit_code::gpu_in_use after saying why on
// `err` when the run must stop, exit_code::ok otherwise. Nothing to judge on a simulated device.
int check_gpu_sharing(Backend& device, bool simulated, const GpuClaim& claim,
                      const Options& options, Topology& topology, std::ostream& err);

}  // namespace memtopo
