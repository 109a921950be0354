#include "run/context.hpp"

#include "run/clock.hpp"
#include "run/phase.hpp"

namespace memtopo {
namespace {

// The SM clock of barrier and spill samples: their clock64 cycles over their %globaltimer
// nanoseconds; 0 where no sample has both.
double clock_of_samples(const std::vector<double>& cycles, const std::vector<double>& ns) {
  double cycle_sum = 0, ns_sum = 0;
  for (std::size_t i = 0; i < cycles.size() && i < ns.size(); ++i) {
    cycle_sum += cycles[i];
    ns_sum += ns[i];
  }
  return ns_sum > 0 ? cycle_sum / ns_sum * 1e6 : 0;  // cycles per ns = GHz
}

std::string lacks(const Backend& backend, const std::string& what) {
  return "the " + std::string(backend.kind()) + " backend runs no " + what;
}

// The run's peer GPUs with their experiments, or Skipped in a run of one device.
PeerBackend& peer_experiments(PeerBackend* peers) {
  if (!peers) throw Skipped("this run measures one device: there is no peer GPU");
  return *peers;
}

}  // namespace

std::vector<Trace> RunContext::run(std::span<const ChaseSpec> batch,
                                   const std::string& label) const {
  check_interrupted();
  std::vector<Trace> results = backend.run(batch);
  for (const Trace& trace : results) sm_clocks->add(trace.clock_khz);
  if (traces) {
    for (std::size_t i = 0; i < results.size(); ++i) traces->record_experiment(label, ChaseRecord{batch[i], results[i]});
  }
  return results;
}

StreamResult RunContext::run_stream(const StreamSpec& spec, const std::string& label) const {
  check_interrupted();
  StreamExperiments* streams = backend.streams();
  if (!streams) throw StreamsUnsupported("streams are not supported by this backend");
  StreamResult result = streams->run_stream(spec);
  // A one-pass grid's clock is NVML's (no warp lives through the launch), not a measurement.
  if (spec.placement != StreamPlacement::one_pass) sm_clocks->add(result.sm_clock_khz);
  if (traces) traces->record_experiment(label, StreamRecord{spec, result});
  return result;
}

std::vector<Trace> RunContext::run_warp_access(std::span<const WarpAccessSpec> batch,
                                               const std::string& label) const {
  check_interrupted();
  WarpAccessExperiments* warp = backend.warp_access();
  if (!warp) throw Skipped(lacks(backend, "warp-wide shared-memory access"));
  std::vector<Trace> results = warp->run_warp_access(batch);
  for (const Trace& trace : results) sm_clocks->add(trace.clock_khz);
  if (traces) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      traces->record_experiment(label, WarpAccessRecord{batch[i], results[i]});
    }
  }
  return results;
}

L2FirstTouchResult RunContext::run_l2_first_touch(const L2FirstTouchSpec& spec,
                                                  const std::string& label) const {
  check_interrupted();
  L2FirstTouchExperiments* touches = backend.l2_first_touch();
  if (!touches) throw Skipped(lacks(backend, "cross-SM L2 first-touch experiment"));
  L2FirstTouchResult result = touches->run_l2_first_touch(spec);
  sm_clocks->add(result.clock_khz);
  if (traces) traces->record_experiment(label, FirstTouchRecord{spec, result});
  return result;
}

StridedAccessRunner& RunContext::strided_access() const {
  StridedAccessRunner* runner = backend.strided_access();
  if (!runner) throw Skipped(lacks(backend, "strided warp requests"));
  return *runner;
}

StridedAccessResult RunContext::run_strided(const StridedAccessSpec& spec,
                                            const std::string& label) const {
  check_interrupted();
  StridedAccessResult result = strided_access().run_strided(spec);
  sm_clocks->add(result.sm_clock_khz);
  if (traces) traces->record_experiment(label, StridedRecord{spec, result});
  return result;
}

StudyKernels& RunContext::study_kernels(const std::string& missing) const {
  if (StudyKernels* kernels = backend.study_kernels()) return *kernels;
  if (backend.kind() == "sim") {
    throw Skipped("the simulated device does not model " + missing +
                  ": this study needs a CUDA GPU");
  }
  throw Skipped(lacks(backend, "experiment on " + missing));
}

BarrierRun RunContext::run_barrier(const BarrierSpec& spec, const std::string& label) const {
  check_interrupted();
  BarrierRun run = study_kernels("barriers").run_barrier(spec);
  sm_clocks->add(clock_of_samples(run.cycles_per_barrier, run.ns_per_barrier));
  if (traces) traces->record_experiment(label, BarrierRecord{spec, run});
  return run;
}

SpillRun RunContext::run_spill(const SpillSpec& spec, const std::string& label) const {
  check_interrupted();
  SpillRun run = study_kernels("registers or local memory").run_spill(spec);
  sm_clocks->add(clock_of_samples(run.cycles_per_iteration, run.ns_per_iteration));
  if (traces) traces->record_experiment(label, SpillRecord{spec, run});
  return run;
}

PeerDevices& RunContext::peers() const {
  return peer_experiments(peer_backend);
}

RemoteChaseResult RunContext::run_remote_chase(const RemoteChaseSpec& spec,
                                               const std::string& label) const {
  check_interrupted();
  RemoteChaseResult result = peer_experiments(peer_backend).run_remote_chase(spec);
  sm_clocks->add(result.sm_clock_khz);  // the reader's SM clock over its samples
  if (traces) traces->record_experiment(label, RemoteChaseRecord{spec, result});
  return result;
}

TransferResult RunContext::run_transfer(const TransferSpec& spec, const std::string& label) const {
  check_interrupted();
  // Timed by events: no SM clock to log.
  TransferResult result = peer_experiments(peer_backend).run_transfer(spec);
  if (traces) traces->record_experiment(label, TransferRecord{spec, result});
  return result;
}

void RunContext::phase(const std::string& name, const std::function<void()>& work) const {
  PhaseTiming timing(name);
  try {
    time_phase(timing, [this] { return sm_clock_khz(backend); }, work);
  } catch (...) {
    topology.run.phases.push_back(timing);
    throw;
  }
  topology.run.phases.push_back(timing);
}

}  // namespace memtopo
