#include "cli/run_engine.hpp"

#include "backend/cuda/cuda_peer_backend.hpp"
#include "backend/sim/sim_peer_backend.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "model/printable_text.hpp"
#include "probes/core/runner.hpp"
#include "report/output_error.hpp"

namespace memtopo {

int plan_outputs(const Options& options, const std::string& program, OutputPlan& plan,
                 std::ostream& err) {
  try {
    plan.json = prepare_json_output(options.json_file);
    plan.export_file = prepare_export_output(options);
    plan.reports =
        prepare_report_outputs(options.html_file, options.markdown_file, options.svg_file);
    if (!options.traces_dir.empty()) {
      plan.trace_writer = std::make_unique<CsvTraceWriter>(options.traces_dir);
      plan.locks.lock_directory(plan.trace_writer->directory(),
                                "--traces " + printable_text(options.traces_dir));
    }
    for (const auto* target : {&plan.json, &plan.export_file, &plan.reports.html,
                               &plan.reports.markdown, &plan.reports.svg}) {
      plan.locks.lock_file(*target);
    }
  } catch (const OutputError& error) {
    err << program << ": " << error.what() << "\n";
    return exit_code::cannot_write;
  }
  if (!sim_file_exists(options, program, err)) return exit_code::bad_input;
  return exit_code::ok;
}

std::unique_ptr<PeerBackend> open_peer_devices(const Options& options,
                                               const std::vector<int>& devices) {
  if (options.sim_file.empty()) return make_cuda_peer_backend(devices);
  return select_peer_devices(make_sim_peer_backend_from_file(options.sim_file), devices);
}

int peer_device_count(const Options& options) {
  if (options.sim_file.empty()) return cuda_device_count();
  return make_sim_peer_backend_from_file(options.sim_file)->device_count();
}

int open_run_device(const Options& options, Clock::time_point setup_start, DeviceRun& run,
                    std::ostream& err) {
  int exit = exit_code::ok;
  run.opened = open_device(options, run.claim, err, exit);
  if (!run.opened) return exit;
  Topology& topology = run.topology;
  topology.run.simulated = run.opened->simulated;
  // Paths are bytes; the report stores them as printable UTF-8 (report/output_file.hpp).
  topology.run.sim_file = printable_text(run.opened->sim_file);
  Backend& device = *run.opened->backend;
  topology.device = device.facts();
  exit = check_gpu_sharing(device, run.opened->simulated, run.claim, options, topology, err);
  if (exit != exit_code::ok) return exit;
  topology.run.phases.push_back(
      PhaseTiming{"setup", seconds_since(setup_start), std::nullopt, sm_clock_khz(device)});
  return exit_code::ok;
}

Measurement::Measurement(const Options& options, Backend& device, Topology& topology,
                         CsvTraceWriter* trace_writer, std::function<std::string()> current_phase,
                         std::function<void(const std::string&)> progress)
    : context_{.backend = device,
               .topology = topology,
               .progress = std::move(progress),
               .interrupted = interrupt_requested,
               .seed = options.seed} {
  if (trace_writer) {
    // Written by a thread of its own while the run measures on (cli/trace_recorder.hpp).
    recorder_.emplace(*trace_writer, std::move(current_phase),
                      TraceRecorder::Writing::in_background);
    context_.traces = &*recorder_;
  }
}

int outcome_exit_code(const RunInfo& run, std::span<const ProbeOutcome> outcomes,
                      const Options& options, bool write_failed, SkipMeans skip) {
  if (write_failed) return exit_code::cannot_write;
  // A signal during the final writes too: the run is complete, but it was asked to stop.
  if (run.interrupted || interrupt_signal() != 0) {
    return interrupt_signal() ? exit_code::interrupted_by(interrupt_signal())
                              : exit_code::interrupted;
  }
  // Another process came during the run (it was alone when it started).
  if (run.shared_gpu && !options.allow_shared) return exit_code::gpu_in_use;
  bool any_completed = false, any_lacked_memory = false, any_failed = false, any_skipped = false;
  for (const ProbeOutcome& outcome : outcomes) {
    any_completed |= outcome.status == "ok";
    any_lacked_memory |= skipped_for_lack_of_memory(outcome);
    any_failed |= outcome.status == "failed";
    any_skipped |= outcome.status == "skipped";
  }
  // A probe that lacked memory is skipped; only a run where nothing could run is a failure.
  if (any_lacked_memory && !any_completed) return exit_code::out_of_memory;
  if (any_failed) return exit_code::probe_failed;
  if (any_skipped && !any_completed && skip == SkipMeans::run_skipped) {
    return exit_code::study_skipped;
  }
  return exit_code::ok;
}

}  // namespace memtopo
