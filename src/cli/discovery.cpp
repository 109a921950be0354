#include "cli/discovery.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <unistd.h>

#include "cli/exit_codes.hpp"
#include "cli/gpu_claim.hpp"
#include "cli/interrupt.hpp"
#include "cli/open_backend.hpp"
#include "cli/output_lock.hpp"
#include "cli/outputs.hpp"
#include "cli/progress_display.hpp"
#include "cli/run_info.hpp"
#include "cli/run_engine.hpp"
#include "model/printable_text.hpp"
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
// that was running. A failed checkpoint is said once and the run goes on: the final write tries
// again and decides the exit code.
class Checkpoints {
 public:
  Checkpoints(const Plan& plan, Topology& topology, Clock::time_point run_start, std::ostream& err)
      : plan_(plan), topology_(topology), run_start_(run_start), err_(err) {}

  void write() {
    if (!takes_checkpoints(plan_.json)) return;
    topology_.run.duration_seconds = seconds_since(run_start_);
    try {
      write_checkpoint(topology_, *plan_.json);
      failing_ = false;
    } catch (const OutputError& error) {
      if (!failing_) {
        err_ << "memtopo: warning: checkpoint not written: " << error.what()
             << "\n  The run goes on; the results are written again at its end.\n";
      }
      failing_ = true;
    }
  }

 private:
  const Plan& plan_;
  Topology& topology_;
  Clock::time_point run_start_;
  std::ostream& err_;
  bool failing_ = false;  // said once per streak of failures
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
  Checkpoints checkpoints(plan, run.topology, run_start, err);
  measure(options, plan, device, run.topology, checkpoints, err);
  run.topology.run.duration_seconds = seconds_since(run_start);
  return exit_code::ok;
}

int run_discovery(const Options& options, const std::vector<std::string>& arguments,
                  std::ostream& out, std::ostream& err) {
  const auto run_start = Clock::now();
  const std::vector<std::unique_ptr<Probe>> registry = all_probes();
  Plan plan;
  if (int code = make_plan(options, registry, plan, err); code != exit_code::ok) return code;

  install_interrupt_handler();
  DeviceRun run;
  Topology& topology = run.topology;
  topology.run = start_run_info(arguments);
  if (int exit = open_run_device(options, Clock::now(), run, err); exit != exit_code::ok)
    return exit;
  add_api_facts(topology);
  Backend& device = *run.opened->backend;

  Checkpoints checkpoints(plan, topology, run_start, err);
  std::string trace_error = measure(options, plan, device, topology, checkpoints, err);
  topology.run.duration_seconds = seconds_since(run_start);
  return finish(topology, options, plan, trace_error, out, err);
}

}  // namespace memtopo
