#pragma once
// The only interface between measuring code and a device (a real GPU or a simulated one).
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/l2_first_touch.hpp"
#include "backend/warp_access.hpp"
#include "model/device_conditions.hpp"
#include "backend/stream.hpp"
#include "model/device_facts.hpp"

namespace memtopo {

class StridedAccessRunner;
class HopperExperiments;
class StudyKernels;

// A probe that plans footprints from the free device memory (BackendLimits, read when it plans)
// leaves this share of it unplanned: its own record buffers and kept arrays take some of it
// before its largest chase runs. On the H200 the TLB row planned exactly the 147,000,750,016
// bytes free and found 1.2 MB less when the chase ran, so it was skipped.
inline constexpr std::uint64_t kUnplannedShareOfFreeMemory = 64;  // 1/64

// The share of `free_bytes` a probe may plan its largest footprint for; also what the CUDA
// backend sizes kept wide arrays for (ChaseSpec::keep_arrays).
constexpr std::uint64_t plannable_bytes(std::uint64_t free_bytes) {
  return free_bytes - free_bytes / kUnplannedShareOfFreeMemory;
}

// What a backend can run; probes plan within these limits instead of assuming a GPU.
struct BackendLimits {
  std::uint64_t max_footprint_bytes = 0;  // global paths
  // Wide chains (ChaseSpec::wide_indices), which 32-bit word indices do not limit: the device
  // memory the chase array may take. 0: the backend runs no wide chains.
  std::uint64_t max_wide_footprint_bytes = 0;
  std::uint64_t max_constant_footprint_bytes = 0;  // constant path (constant bank size)
  std::uint64_t max_shared_footprint_bytes = 0;    // shared path (per block)
  // ChaseSpec::reserved_shared_bytes, at most: the shared memory a block may use minus the
  // chase's own (its records; on the shared path its chain counts against this as well).
  std::uint64_t max_reserved_shared_bytes = 0;
  std::uint32_t max_timed_loads = 0;  // per chaser
  std::uint32_t max_chasers = 0;
  std::uint32_t concurrent_slots = 0;  // independent chases that may run at once (one per SM)
  // SM ids a spec may name in ChaseSpec::sm (%smid values need not be 0..n-1 on a GPU);
  // empty means 0 .. concurrent_slots-1.
  std::vector<std::uint32_t> sm_ids;
  // WarpAccessSpec area_bytes, at most; 0: the backend runs no warp access (warp_access() may
  // still exist and refuse every spec). Timed accesses are limited by max_timed_loads.
  std::uint64_t max_warp_access_bytes = 0;
};

// Thrown by a backend for a request it cannot run (bad spec, too large, unsupported path).
class ExperimentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No usable device: no driver, no GPU visible, or a device index out of range.
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device has too little memory (or shared memory) for what was asked.
class OutOfMemoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A request whose arrays need more device memory than is free now (less a margin for the
// runtime): nothing was allocated. A probe that meets it is skipped with this reason, like
// one that meets OutOfMemoryError, rather than failed.
class MemoryUnavailableError : public ExperimentError {
 public:
  using ExperimentError::ExperimentError;
};

// A simulated device description that cannot be read: missing file, corrupt JSON, an unknown
// key or a bad value. The message names the file and the key.
class DescriptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "cuda" or "sim".
  virtual std::string_view kind() const = 0;
  // Facts about the device, every one marked source api (or sim, for a simulated device).
  virtual const DeviceFacts& facts() const = 0;
  virtual BackendLimits limits() const = 0;

  // Runs a batch of independent chases and returns one trace per spec, in order. Specs in one
  // batch may run concurrently on different SMs (each on its own SM); a caller that needs a
  // chase to run alone passes a batch of one.
  virtual std::vector<Trace> run(std::span<const ChaseSpec> batch) = 0;

  // Measures the SM clock now, in kHz (0 when the backend cannot tell).
  virtual double current_sm_clock_khz() { return 0; }

  // What the device reports about itself now: clocks, temperature, power, clock-event reasons
  // and the other processes on it (memtopo's own excluded); nullopt when the backend cannot
  // tell (a simulated device).
  virtual std::optional<DeviceConditions> conditions() { return std::nullopt; }

  // ---- Optional capabilities: one mechanism for every experiment beyond chases. Each returns
  // the backend's interface for it, or nullptr where the backend lacks it (a simulated device
  // models no Hopper experiment and no study kernel); a caller that gets nullptr skips, saying
  // why. No default throws, no caller casts.
  virtual StreamExperiments* streams() { return nullptr; }                // stream.hpp
  virtual WarpAccessExperiments* warp_access() { return nullptr; }        // warp_access.hpp
  virtual L2FirstTouchExperiments* l2_first_touch() { return nullptr; }  // l2_first_touch.hpp
  virtual StridedAccessRunner* strided_access() { return nullptr; }       // strided_access.hpp
  virtual HopperExperiments* hopper() { return nullptr; }                 // hopper_experiments.hpp
  virtual StudyKernels* study_kernels() { return nullptr; }               // study_kernels.hpp
};

}  // namespace memtopo
