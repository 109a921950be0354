#include "cli/discovery.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <unistd.h>

#include "cli/checkpoint_writer.hpp"
#include "cli/exit_codes.hpp"
#include "cli/gpu_claim.hpp"
#include "cli/interrupt.hpp"
#include "cli/open_backend.hpp"
#include "cli/output_lock.hpp"
#include "cli/outputs.hpp"
#include "cli/progress_display.hpp"
#include "cli/run_engine.hpp"
#include "cli/run_info.hpp"
#include "model/printable_text.hpp"
#include "model/startup_clock.hpp"
#include "probes/core/runner.hpp"
#include "report/console.hpp"
#include "report/csv_traces.hpp"
#include "report/output_error.hpp"

namespace memtopo {
namespace {

// What the user asked for, checked before any device is touched: the probes and the outputs.
struct Plan : OutputPlan {
  std::vector<Probe*> probes;
};

// Returns exit_code::ok and fills `plan`, or prints the problem and returns its exit code.
int make_plan(const Options& options, const std::vector<std::unique_ptr<Probe>>& registry,
              Plan& plan, std::ostream& err) {
  // The p2p family is no unknown id: it runs between GPUs, in a multi-device run only.
  for (const std::string& id : options.only) {
    if (id == "p2p" || id.starts_with("p2p.")) {
      err << "memtopo: --only " << printable_text(id)
          << ": the p2p probes run between GPUs; add --device all (or a list, --device 0,1).\n";
      return exit_code::usage;
    }
  }
  try {
    plan.probes = select_probes(registry, options.only);
  } catch (const SelectionError& error) {
    err << "memtopo: --only: " << error.what() << "\n";
    return exit_code::usage;
  }
  return plan_outputs(options, "memtopo", plan, err);
}

// Rewrites the JSON file after each probe, so that a crash or SIGKILL loses at most the probe
// that was running and the checkpoint being written (cli/checkpoint_writer.hpp: a thread writes
// them). A failed checkpoint is said once and the run goes on: the final write tries again and
// decides the exit code.
class Checkpoints {
 public:
  Checkpoints(const Plan& plan, Topology& topology, Clock::time_point run_start, double before_run,
              std::ostream& err)
      : topology_(topology), run_start_(run_start), before_run_(before_run), err_(err) {
    if (takes_checkpoints(plan.json)) writer_.emplace(*plan.json);
  }

  void write() {
    if (!writer_) return;
    const auto start = Clock::now();
    say_failure(writer_->last_error());
    topology_.run.duration_seconds = before_run_ + seconds_since(run_start_);
    writer_->submit(topology_);  // a copy: the run goes on while the thread writes it
    topology_.run.checkpoint_seconds += seconds_since(start);
  }

  // Before the last write: waits for the checkpoint being written, so that none comes after.
  void finish() { writer_.reset(); }

 private:
  void say_failure(const std::string& error) {
    if (!error.empty() && !failing_) {
      err_ << "memtopo: warning: checkpoint not written: " << error
           << "\n  The run goes on; the results are written again at its end.\n";
    }
    failing_ = !error.empty();  // said once per streak of failures
  }

  Topology& topology_;
  Clock::time_point run_start_;
  double before_run_;  // main() to run_start_
  std::ostream& err_;
  std::optional<CheckpointWriter> writer_;
  bool failing_ = false;
};

// Whether stderr is the process's terminal (an ostream given by a test never is).
TerminalAbilities stderr_abilities(const std::ostream& err) {
  const bool is_terminal = err.rdbuf() == std::cerr.rdbuf() && isatty(STDERR_FILENO) == 1;
  return terminal_abilities(is_terminal, std::getenv("TERM"), std::getenv("NO_COLOR"));
}

// Runs the planned probes into `topology`; returns the trace write error, if any.
std::string measure(const Options& options, Plan& plan, Backend& device, Topology& topology,
                    Checkpoints& checkpoints, std::ostream& err) {
  // Traces a probe runs without a label are named after the probe running now: run_probes
  // appends one phase per probe when it ends, so that is the one after the phases so far.
  const std::size_t phases_before = topology.run.phases.size();
  auto current_probe = [&]() -> std::string {
    std::size_t index = topology.run.phases.size() - phases_before;
    return index < plan.probes.size() ? plan.probes[index]->id() : "unknown";
  };
  std::optional<ProgressDisplay> display;
  if (!options.quiet) {
    display.emplace(err, stderr_abilities(err), plan.probes.size(), terminal_width());
  }
  auto finished_seconds = [&] {
    double seconds = 0;
    for (std::size_t i = phases_before; i < topology.run.phases.size(); ++i)
      seconds += topology.run.phases[i].seconds;
    return seconds;
  };
  Measurement measurement(options, device, topology, plan.trace_writer.get(), current_probe,
                          [&](const std::string& line) {
                            if (!display) return;
                            display->step(topology.run.phases.size() - phases_before,
                                          current_probe(), finished_seconds(), line);
                          });
  try {
    run_probes(measurement.context(), plan.probes, [&](const Probe&) {
      if (display) display->clear();  // a checkpoint warning gets a line of its own
      checkpoints.write();
    });
  } catch (const Interrupted&) {
    display.reset();
    err << "memtopo: stopped after the current batch (" << signal_name(interrupt_signal())
        << "); writing what was measured so far.\n";
  }
  return measurement.trace_error();
}

// Writes the reports and says on stderr what the exit code will mean.
int finish(Topology& topology, const Options& options, const Plan& plan,
           const std::string& trace_error, std::ostream& out, std::ostream& err) {
  if (!trace_error.empty())
    topology.warnings.push_back("raw traces are incomplete: " + trace_error);
  // Every output is tried, whatever failed before it: a closed stdout keeps the files.
  bool written = true;
  try {
    write_reports(topology, options, plan.json, out, plan.reports);
  } catch (const OutputError& error) {
    err << "memtopo: " << error.what() << "\n";
    written = false;
  }
  if (plan.export_file) {
    try {
      write_export(topology, *plan.export_file);
    } catch (const OutputError& error) {
      err << "memtopo: " << error.what() << "\n";
      written = false;
    }
  }
  if (!written) return exit_code::cannot_write;
  if (!trace_error.empty()) err << "memtopo: " << trace_error << "\n";
  if (plan.trace_writer && !options.quiet) {
    err << "memtopo: " << plan.trace_writer->files_written() << " trace files in "
        << printable_text(plan.trace_writer->directory().string()) << "\n";
  }
  if (topology.run.simulated && options.json_file == "-") {
    // stdout carries JSON only, so the banner that opens the console report goes here.
    err << "memtopo: " << simulated_banner(topology.run.sim_file) << "\n";
  }

  const int code =
      outcome_exit_code(topology.run, topology.run.probes, options, !trace_error.empty());
  if (code == exit_code::probe_failed) {
    err << "memtopo: some probes failed (the report lists them with their reasons); the "
           "other results were written.\n";
  } else if (code == exit_code::gpu_in_use) {
    err << "memtopo: another process used the GPU during the run (the warnings name it); the "
           "results were written, and those it disturbed are marked.\n";
  } else if (code == exit_code::out_of_memory) {
    err << "memtopo: no probe could run for lack of free device memory (the report lists "
           "what each needed); free the GPU (nvidia-smi lists its processes) and try again.\n";
  }
  return code;
}

}  // namespace

int discover_device(const Options& options, const std::vector<Probe*>& probes,
                    const std::vector<std::string>& arguments, DeviceRun& run, std::ostream& err) {
  const auto run_start = Clock::now();
  run.topology.run = start_run_info(arguments);
  if (int exit = open_run_device(options, run_start, run, err); exit != exit_code::ok) return exit;
  add_api_facts(run.topology);
  Backend& device = *run.opened->backend;
  Plan plan;  // no JSON file and no traces: the multi-device run writes one document at the end
  plan.probes = probes;
  Checkpoints checkpoints(plan, run.topology, run_start, 0, err);
  measure(options, plan, device, run.topology, checkpoints, err);
  run.topology.run.duration_seconds = seconds_since(run_start);
  return exit_code::ok;
}

int run_discovery(const Options& options, const std::vector<std::string>& arguments,
                  std::ostream& out, std::ostream& err) {
  const auto run_start = Clock::now();
  if (!startup_clock_running()) start_startup_clock();  // not from main(): a test's call
  const double before_run = seconds_since_startup();    // main() to here: the options
  mark_startup("options");
  const std::vector<std::unique_ptr<Probe>> registry = all_probes();
  Plan plan;
  if (int code = make_plan(options, registry, plan, err); code != exit_code::ok) return code;
  mark_startup("plan");  // the probe registry and order, the output files and their locks

  install_interrupt_handler();
  DeviceRun run;
  Topology& topology = run.topology;
  topology.run = start_run_info(arguments);
  const auto setup_start = Clock::now();
  if (int exit = open_run_device(options, setup_start, run, err); exit != exit_code::ok)
    return exit;
  mark_startup("sharing_check");
  add_api_facts(topology);
  Backend& device = *run.opened->backend;
  // "startup": main() to the device's opening; "setup" (recorded by open_run_device): opening
  // it to the first probe. Startup comes first in the phase list, as it came first in time.
  const double startup_seconds = before_run + seconds_since(run_start) - seconds_since(setup_start);
  topology.run.phases.insert(topology.run.phases.end() - 1,
                             PhaseTiming{"startup", startup_seconds});
  topology.run.startup = take_startup_steps();

  Checkpoints checkpoints(plan, topology, run_start, before_run, err);
  std::string trace_error = measure(options, plan, device, topology, checkpoints, err);
  checkpoints.finish();
  topology.run.duration_seconds = before_run + seconds_since(run_start);
  return finish(topology, options, plan, trace_error, out, err);
}

}  // namespace memtopo
