#pragma once
// Runs probes end to end on simulated devices and reads the ground truth from the same
// description file, so that every expectation is tied to what the description configures.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"
#include "backend/stream.hpp"
#include "backend/warp_access.hpp"
#include "model/topology.hpp"

namespace memtopo::testing {

// Absolute path of a file in the source tree, e.g. "sims/hopper-like.json".
std::string source_path(const std::string& relative);

// The description file as JSON, for ground truth.
struct SimTruth {
  nlohmann::json description;

  // The first cache with this name ("L1", "L2"); fails the test when absent.
  const nlohmann::json& cache(const std::string& name) const;
  double jitter() const;
  double number(const std::string& key) const { return description.at(key).get<double>(); }
  // The described DRAM rate, bytes per second: throughput.dram_bytes_per_cycle at clock_khz.
  double dram_bytes_per_second() const;
};
SimTruth read_truth(const std::string& relative_path);

// Wraps a backend and counts what probes ask of it; it has the capabilities the inner one has.
class CountingBackend : public Backend, public WarpAccessExperiments, public StreamExperiments {
 public:
  explicit CountingBackend(Backend& inner) : inner_(inner) {}
  std::string_view kind() const override { return inner_.kind(); }
  const DeviceFacts& facts() const override { return inner_.facts(); }
  BackendLimits limits() const override { return inner_.limits(); }
  std::vector<Trace> run(std::span<const ChaseSpec> batch) override;
  std::vector<Trace> run_warp_access(std::span<const WarpAccessSpec> batch) override;
  double current_sm_clock_khz() override { return inner_.current_sm_clock_khz(); }
  WarpAccessExperiments* warp_access() override {
    return inner_.warp_access() ? this : nullptr;
  }
  StreamExperiments* streams() override { return inner_.streams() ? this : nullptr; }
  StreamResult run_stream(const StreamSpec& spec) override;
  L2FirstTouchExperiments* l2_first_touch() override { return inner_.l2_first_touch(); }
  StridedAccessRunner* strided_access() override { return inner_.strided_access(); }
  HopperExperiments* hopper() override { return inner_.hopper(); }
  StudyKernels* study_kernels() override { return inner_.study_kernels(); }

  std::uint64_t loads = 0;  // warm and timed loads of every chase
  std::uint64_t chases = 0;
  std::uint64_t batches = 0;
  std::uint64_t warp_accesses = 0;  // warm and timed accesses of every warp access
  std::uint64_t warp_access_batches = 0;
  std::uint64_t stream_launches = 0;  // warm-up and timed launches of every stream
  double backend_cpu_seconds = 0;   // CPU time inside inner.run(): the simulated device's share

 private:
  Backend& inner_;
};

// What one probe asked of the device (tests/probes/discovery/work_counts_test.cpp).
struct ProbeWork {
  std::string probe_id;
  std::uint64_t batches = 0;  // chase launches (a batch runs its chases together)
  std::uint64_t chases = 0;
  std::uint64_t loads = 0;    // warm and timed loads of its chases
  std::uint64_t warp_access_batches = 0;
  std::uint64_t warp_accesses = 0;
  std::uint64_t stream_launches = 0;
};

struct ProbeRun {
  Topology topology;
  std::map<std::string, std::string> skipped;  // probe id -> reason
  double seconds = 0;
  double cpu_seconds = 0;          // CPU time of the whole run (load on the machine aside)
  double backend_cpu_seconds = 0;  // of cpu_seconds, inside the backend; the rest is analysis
  std::uint64_t loads = 0;
  std::uint64_t batches = 0;
  std::vector<ProbeWork> work;  // per probe, in the order they ran
};

// Runs the probes with these ids (all of them when empty), in all_probes() order, on the
// simulated device described by `relative_path`.
ProbeRun run_on_sim(const std::string& relative_path, const std::vector<std::string>& ids = {},
                    std::uint64_t seed = 1);

// A property the run must have produced; fails the test (and throws) when it did not.
const Property& property(const ProbeRun& run, const std::string& element, const std::string& name);

// A finding's confidence factors without the `inherited` one that the runner appends for the
// findings its plan read (core/inheritance.hpp): the probe's own evidence.
nlohmann::json own_factors(const Property& p);
// Their product: the confidence the probe's own evidence gives the value.
double own_confidence(const Property& p);

// A test-name suffix for a description file: "tests/sims/l1-24k.json" -> "l1_24k".
std::string sim_file_test_name(const std::string& path);

}  // namespace memtopo::testing
