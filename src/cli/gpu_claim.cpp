#include "cli/gpu_claim.hpp"

#include <cstdio>
#include <thread>

#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"

namespace memtopo {
namespace {

// How often the list of processes is asked again while waiting for it to settle.
constexpr std::chrono::milliseconds kSettlePoll{250};
// How long a process found on the GPU before the first probe gets to go: a memtopo that just
// handed over the lock may be listed until the driver has torn its context down.
constexpr std::chrono::seconds kSettle{3};

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

std::string device_text(const DeviceFacts& facts) {
  std::string text = "GPU " + std::to_string(facts.device_index) + " (" + facts.name;
  if (!facts.uuid.empty()) text += ", " + facts.uuid;
  return text + ")";
}

}  // namespace

void lock_gpu(const std::string& uuid, const Options& options, std::ostream& err, GpuClaim& claim) {
  GpuLockWait wait;
  if (options.wait_seconds) wait.limit = std::chrono::duration<double>(*options.wait_seconds);
  wait.interrupted = interrupt_requested;
  wait.on_wait = [&](const std::string& holder) {
    err << "memtopo: the GPU " << uuid << " is in use by another memtopo (" << holder
        << "); waiting for it to finish"
        << (options.wait_seconds ? " (at most " + seconds_text(*options.wait_seconds) + ")"
                                 : std::string(" (--wait SECONDS sets a limit; Ctrl-C stops)"))
        << ".\n";
  };
  claim.lock = std::make_unique<GpuLock>(uuid, default_lock_directory(), wait);
  if (claim.lock->waited_seconds() > 0 && claim.lock->held()) {
    err << "memtopo: the GPU is free after " << seconds_text(claim.lock->waited_seconds())
        << "; starting.\n";
  }
  if (claim.lock->held()) claim.lock->keep_until_exit();
}

SharingVerdict judge_sharing(const DeviceFacts& facts,
                             const std::optional<DeviceConditions>& conditions, bool allow_shared) {
  SharingVerdict verdict;
  if (!conditions || !conditions->other_processes) {
    const std::string why =
        !conditions ? "NVML: " + facts.nvml_status : std::string("NVML cannot list its processes");
    verdict.warning = "memtopo cannot tell whether another process uses " + device_text(facts) +
                      " (" + why + "): if one does, its work disturbs every measurement";
    verdict.message = verdict.warning;
    return verdict;
  }
  verdict.others = *conditions->other_processes;
  if (verdict.others.empty()) return verdict;
  const std::string others = describe_processes(verdict.others);
  if (!allow_shared) {
    verdict.refuse = true;
    verdict.message =
        device_text(facts) + " is in use by another process: " + others +
        ". Its kernels and memory traffic would distort every measurement. Wait until it ends "
        "(nvidia-smi lists the GPU's processes), pick another GPU with --device N, or measure "
        "anyway with --allow-shared (every result is then marked as measured on a shared GPU).";
    return verdict;
  }
  verdict.shared = true;
  verdict.warning = "measured on a shared GPU (--allow-shared): " + others +
                    " used it too, so every result may be disturbed by its work";
  verdict.message = verdict.warning;
  return verdict;
}

std::optional<DeviceConditions> settled_conditions(Backend& backend,
                                                   std::chrono::duration<double> settle) {
  const auto deadline = std::chrono::steady_clock::now() + settle;
  std::optional<DeviceConditions> conditions = backend.conditions();
  while (conditions && conditions->other_processes && !conditions->other_processes->empty() &&
         std::chrono::steady_clock::now() < deadline && !interrupt_requested()) {
    std::this_thread::sleep_for(kSettlePoll);
    conditions = backend.conditions();
  }
  return conditions;
}

void record_claim(const GpuClaim& claim, const SharingVerdict& verdict, RunInfo& run,
                  std::vector<std::string>& warnings) {
  if (claim.lock) {
    run.gpu_lock =
        claim.lock->held() ? claim.lock->path().string() : "none: " + claim.lock->problem();
    if (!claim.lock->held()) {
      warnings.push_back("the GPU lock could not be taken (" + claim.lock->problem() +
                         "): another memtopo could start on this GPU during the run");
    }
  }
  run.shared_gpu = verdict.shared;
  run.other_gpu_processes = verdict.others;
  if (!verdict.warning.empty()) warnings.push_back(verdict.warning);
}

int check_gpu_sharing(Backend& device, bool simulated, const GpuClaim& claim,
                      const Options& options, Topology& topology, std::ostream& err) {
  if (simulated) return exit_code::ok;
  const SharingVerdict verdict =
      judge_sharing(topology.device, settled_conditions(device, kSettle), options.allow_shared);
  if (verdict.refuse) {
    err << "memtopo: " << verdict.message << "\n";
    return exit_code::gpu_in_use;
  }
  if (!verdict.message.empty()) err << "memtopo: warning: " << verdict.message << "\n";
  record_claim(claim, verdict, topology.run, topology.warnings);
  return exit_code::ok;
}

}  // namespace memtopo
