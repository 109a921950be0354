#pragma once
// The run engine's context: what every kind of run (a discovery's probes, a study, the p2p
// family between GPUs) measures through. It checks for a stop signal before every experiment,
// hands every experiment to the trace sink (--traces) and its SM clock to the run's clock log,
// turns a capability the backend lacks into a skip with the reason, and times phases. Nothing
// reaches a device around it (docs/architecture.md, "The run engine").
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/p2p.hpp"
#include "backend/strided_access.hpp"
#include "backend/study_kernels.hpp"
#include "model/topology.hpp"
#include "run/errors.hpp"
#include "run/sm_clock_log.hpp"
#include "run/trace_sink.hpp"

namespace memtopo {

struct RunContext {
  Backend& backend;
  // What the run writes: a discovery's findings; for every run its phases and warnings.
  Topology& topology;
  // Progress lines for stderr during long phases ("l1.size: doubling 64 KiB").
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  // Returns true once the user asked to stop; checked before every experiment.
  std::function<bool()> interrupted = [] { return false; };
  std::uint64_t seed = 1;  // base seed for every random choice a run makes
  // Receives every experiment (label: which probe or study and step made it, e.g.
  // "l1.size/scan"); nullptr: none is kept.
  TraceSink* traces = nullptr;
  // Every SM clock an experiment of this run measured.
  std::shared_ptr<SmClockLog> sm_clocks = std::make_shared<SmClockLog>();
  // The GPUs a multi-device run measures between (the p2p family); nullptr in a run of one
  // device. They span several devices, so they are the run's, not one Backend's capability.
  PeerBackend* peer_backend = nullptr;

  // Throws Interrupted once a stop signal arrived; long loops call it between batches.
  void check_interrupted() const {
    if (interrupted()) throw Interrupted();
  }

  // Each runs one experiment (or batch) on the backend: an interrupt checked first, the SM
  // clock logged, the result handed to the trace sink under `label`.
  std::vector<Trace> run(std::span<const ChaseSpec> batch, const std::string& label = "") const;
  // Throws StreamsUnsupported where the backend runs no streams.
  StreamResult run_stream(const StreamSpec& spec, const std::string& label = "") const;
  // A backend without the capability: Skipped, saying so.
  std::vector<Trace> run_warp_access(std::span<const WarpAccessSpec> batch,
                                     const std::string& label = "") const;
  L2FirstTouchResult run_l2_first_touch(const L2FirstTouchSpec& spec,
                                        const std::string& label = "") const;
  StridedAccessResult run_strided(const StridedAccessSpec& spec,
                                  const std::string& label = "") const;
  BarrierRun run_barrier(const BarrierSpec& spec, const std::string& label = "") const;
  SpillRun run_spill(const SpillSpec& spec, const std::string& label = "") const;
  // Between GPUs (or a GPU and the host), through peers(): a dependent chase of one GPU's SM
  // over another's memory (its SM clock logged), and a transfer by SMs or copy engines.
  RemoteChaseResult run_remote_chase(const RemoteChaseSpec& spec,
                                     const std::string& label = "") const;
  TransferResult run_transfer(const TransferSpec& spec, const std::string& label = "") const;

  // The backend's capability, or Skipped naming what it lacks (for a run that needs it before
  // its first experiment).
  StridedAccessRunner& strided_access() const;
  // `missing` names what the study kernels model ("barriers", "registers and local memory").
  StudyKernels& study_kernels(const std::string& missing) const;
  // The run's peer GPUs, their access and links (their experiments go through
  // run_remote_chase and run_transfer), or Skipped in a run of one device.
  PeerDevices& peers() const;

  // Runs `work` as phase `name` of the run (topology.run.phases: seconds, SM clock before and
  // after), also when it throws.
  void phase(const std::string& name, const std::function<void()>& work) const;
};

}  // namespace memtopo
