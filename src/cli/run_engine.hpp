#pragma once
// The run engine's CLI half (docs/architecture.md, "The run engine"): what a discovery, a study
// and a multi-device run share from options to exit code. plan_outputs checks every output
// before a device is touched; open_run_device opens and claims the device and records its facts
// and the setup phase (open_peer_devices a multi-device run's GPUs as peers); Measurement is the
// context (run/context.hpp) with the stop signal, the seed, progress and --traces wired in;
// outcome_exit_code says what the run means.
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "cli/gpu_claim.hpp"
#include "cli/open_backend.hpp"
#include "cli/options.hpp"
#include "cli/output_lock.hpp"
#include "cli/outputs.hpp"
#include "cli/trace_recorder.hpp"
#include "model/topology.hpp"
#include "report/csv_traces.hpp"
#include "run/clock.hpp"
#include "run/context.hpp"

namespace memtopo {

// Every output the options name, checked and locked before anything is measured.
struct OutputPlan {
  std::optional<OutputTarget> json;         // --json FILE (not for --json -)
  std::optional<OutputTarget> export_file;  // --export FORMAT FILE
  ReportTargets reports;                    // --html FILE, --markdown FILE, --svg FILE
  std::unique_ptr<CsvTraceWriter> trace_writer;  // --traces DIR
  OutputLocks locks;  // every output above, against a second memtopo writing it
};

// Fills `plan`. Returns exit_code::ok, or after saying why on `err` ("<program>: ..."):
// cannot_write for an output that cannot be written, bad_input for a --sim file that is missing.
int plan_outputs(const Options& options, const std::string& program, OutputPlan& plan,
                 std::ostream& err);

// One device of a run: its lock (taken before the backend, so it outlives the device's use),
// its open backend and what the run writes about it.
struct DeviceRun {
  GpuClaim claim;
  std::optional<OpenedBackend> opened;
  Topology topology;  // a discovery's findings; for a study the header of its report
};

// Opens options.device (taking its lock), records its facts and where they came from in
// run.topology, judges the other processes on it and appends the "setup" phase (from
// `setup_start`). Returns exit_code::ok, or the exit code of a device that could not be opened
// or is in use (after saying why on `err`).
int open_run_device(const Options& options, Clock::time_point setup_start, DeviceRun& run,
                    std::ostream& err);

// A multi-device run's GPUs as peers (RunContext::peer_backend): `devices` (the indices the
// user named, in the run's order) at positions 0 .. n-1, from the --sim description or the CUDA
// GPUs (once every GPU's lock is taken: this creates their contexts). Throws NoDeviceError and
// DescriptionError. `peer_device_count`: how many GPUs there are to name (multi_gpu.gpus, or
// what CUDA lists).
std::unique_ptr<PeerBackend> open_peer_devices(const Options& options,
                                               const std::vector<int>& devices);
int peer_device_count(const Options& options);

// The engine's context for one run on `device`, writing into `topology`: the stop signal, the
// seed, `progress` and, with a trace writer, --traces (experiments without a label named after
// `current_phase`).
class Measurement {
 public:
  Measurement(const Options& options, Backend& device, Topology& topology,
              CsvTraceWriter* trace_writer, std::function<std::string()> current_phase,
              std::function<void(const std::string&)> progress);
  Measurement(const Measurement&) = delete;
  Measurement& operator=(const Measurement&) = delete;

  RunContext& context() { return context_; }
  // Waits until every trace recorded so far is written; the first trace write error, or "".
  std::string trace_error() { return recorder_ ? recorder_->write_error() : ""; }

 private:
  std::optional<TraceRecorder> recorder_;
  RunContext context_;
};

// What a skipped unit means for the exit code: a discovery's skipped probe is a finding (the
// run succeeds), a skipped study is the run's outcome (exit_code::study_skipped).
enum class SkipMeans { finding, run_skipped };

// The exit code of a run whose reports were written, from its run info (interrupted, shared GPU)
// and its units' outcomes (probes, or the study as one): the first of cannot_write (an output
// or the traces not written), the interrupting signal, gpu_in_use, out_of_memory (nothing ran
// for lack of memory), probe_failed, study_skipped that applies (exit_codes.hpp's order).
int outcome_exit_code(const RunInfo& run, std::span<const ProbeOutcome> outcomes,
                      const Options& options, bool write_failed,
                      SkipMeans skip = SkipMeans::finding);

}  // namespace memtopo
