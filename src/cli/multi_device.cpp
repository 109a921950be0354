#include "cli/multi_device.hpp"

#include <filesystem>
#include <memory>

#include "cli/discovery.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/open_backend.hpp"
#include "cli/output_lock.hpp"
#include "cli/outputs.hpp"
#include "cli/printers.hpp"
#include "cli/run_info.hpp"
#include "model/printable_text.hpp"
#include "probes/core/runner.hpp"
#include "probes/p2p/p2p_family.hpp"
#include "report/memory_map.hpp"
#include "report/multi_device_report.hpp"
#include "report/output_error.hpp"

namespace memtopo {
namespace {

// The devices of the run: the named indices, or every one the backend has.
std::vector<int> resolve_devices(const Options& options, int available) {
  if (options.all_devices) {
    std::vector<int> all;
    for (int i = 0; i < available; ++i) all.push_back(i);
    return all;
  }
  for (const int index : options.devices) {
    if (index >= available) {
      throw NoDeviceError("device " + std::to_string(index) + " was named, but " +
                          std::to_string(available) + " " +
                          (options.sim_file.empty() ? "CUDA devices are visible"
                                                    : "GPUs are described (multi_gpu.gpus)"));
    }
  }
  return options.devices;
}

// The devices of the run: the named indices, or every one there is.
std::vector<int> find_devices(const Options& options) {
  return resolve_devices(options, peer_device_count(options));
}

// Options for the discovery of one of the devices.
Options one_device(const Options& options, int index) {
  Options single = options;
  single.device = index;
  single.device_given = true;
  single.devices.clear();
  single.all_devices = false;
  return single;
}

int write_multi_reports(const MultiDeviceReport& report, const Options& options,
                        const OutputPlan& plan, std::ostream& out, std::ostream& err) {
  // The JSON first, whatever its kind of file: a multi-device run always wrote it first.
  PrinterSet printers;
  if (plan.json) printers.add(make_file_printer(Format::json, *plan.json, "--json"));
  PrintTargets targets;
  targets.html = plan.reports.html;
  targets.markdown = plan.reports.markdown;
  targets.svg = plan.reports.svg;
  targets.json_to_stream = options.json_file == "-";
  printers.add(build_printers(targets, out,
                              "cannot write the report to standard output (closed, full, or a "
                              "pipe whose reader has gone)"));
  bool written = true;
  printers.print_each(report, [&](const OutputError& error) {
    err << "memtopo: " << error.what() << "\n";
    written = false;
  });
  return written ? exit_code::ok : exit_code::cannot_write;
}

// The worst outcome over the devices and the p2p family (exit_codes.hpp's order).
int combined_exit_code(const MultiDeviceReport& report, const Options& options) {
  // The run's interruption first (a signal during the final writes too), then each device's
  // outcome, then the pairs'.
  int code = outcome_exit_code(report.run, {}, options, false);
  for (const Topology& topology : report.devices) {
    if (code != exit_code::ok) return code;
    code = outcome_exit_code(topology.run, topology.run.probes, options, false);
  }
  if (report.p2p && code == exit_code::ok) {
    code = outcome_exit_code(report.run, report.p2p->probes, options, false);
  }
  return code;
}

// An output that only a single device's run writes (the multi-device document has no place for
// it yet); nullptr when none was asked for.
const char* single_device_option(const Options& options) {
  if (!options.traces_dir.empty()) return "--traces";
  if (!options.export_format.empty()) return "--export";
  return nullptr;
}

// The p2p family through the engine's context, wired as a device's probes are (the stop signal,
// the seed, progress; a multi-device run takes no --traces), with the run's GPUs (`indices`) as
// its peers. The context's device and topology are the first GPU's, which the family leaves
// alone: it measures between the GPUs, through RunContext::peers() and its peer experiments.
// Throws NoDeviceError when the GPUs cannot be opened together.
P2pReport run_pairs(const std::vector<int>& indices, const P2pSelection& selection,
                    const std::vector<std::unique_ptr<DeviceRun>>& runs, const Options& options,
                    std::ostream& err) {
  const auto peers = open_peer_devices(options, indices);
  std::vector<P2pDevice> devices;
  std::vector<P2pMemorySizes> sizes;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const DeviceFacts& facts = runs[i]->topology.device;
    devices.push_back(P2pDevice{static_cast<int>(i), facts.device_index, facts.name, facts.uuid});
    sizes.push_back(P2pMemorySizes{facts.l2_bytes, facts.global_memory_bytes});
  }
  DeviceRun& first = *runs.front();
  Measurement measurement(options, *first.opened->backend, first.topology, nullptr, {},
                          [&err, quiet = options.quiet](const std::string& line) {
                            if (!quiet) err << "memtopo: " << line << "\n";
                          });
  measurement.context().peer_backend = peers.get();
  return run_p2p(measurement.context(), selection, devices, sizes);
}

}  // namespace

int run_multi_device(const Options& options, const std::vector<std::string>& arguments,
                     std::ostream& out, std::ostream& err) {
  const auto run_start = Clock::now();
  if (const char* option = single_device_option(options)) {
    err << "memtopo: " << option << " is not supported with several devices yet; run one "
        << "--device N at a time for it.\n";
    return exit_code::usage;
  }
  const std::vector<std::unique_ptr<Probe>> registry = all_probes();
  SplitSelection split;
  std::vector<Probe*> probes;
  try {
    split = split_selection(options.only);
    if (split.run_device_probes) probes = select_probes(registry, split.device_ids);
  } catch (const SelectionError& error) {
    err << "memtopo: --only: " << error.what() << "\n";
    return exit_code::usage;
  }
  OutputPlan plan;
  if (const int code = plan_outputs(options, "memtopo", plan, err); code != exit_code::ok)
    return code;
  install_interrupt_handler();

  std::vector<int> devices;
  try {
    devices = find_devices(options);
  } catch (const NoDeviceError& error) {
    err << "memtopo: no usable CUDA device: " << error.what() << "\n";
    return exit_code::no_device;
  } catch (const DescriptionError& error) {
    err << "memtopo: cannot use the simulated device description: " << error.what()
        << "\n  Fix the file or name another with --sim; docs/ describes the format.\n";
    return exit_code::bad_input;
  }

  MultiDeviceReport report;
  report.run = start_run_info(arguments);
  std::vector<std::unique_ptr<DeviceRun>> runs;
  for (const int index : devices) {
    if (!options.quiet) err << "memtopo: GPU " << index << "\n";
    auto run = std::make_unique<DeviceRun>();
    const int code = discover_device(one_device(options, index), probes, arguments, *run, err);
    if (code != exit_code::ok) return code;
    run->topology.device.device_index = index;
    report.run.simulated = run->topology.run.simulated;
    report.run.sim_file = run->topology.run.sim_file;
    report.run.interrupted |= run->topology.run.interrupted;
    runs.push_back(std::move(run));
    if (report.run.interrupted) break;
  }
  if (split.p2p.any() && !report.run.interrupted && !runs.empty() &&
      runs.size() == devices.size()) {
    try {
      report.p2p = run_pairs(devices, split.p2p, runs, options, err);
    } catch (const NoDeviceError& error) {
      err << "memtopo: the GPUs cannot be opened together: " << error.what() << "\n";
      return exit_code::no_device;
    }
    for (const ProbeOutcome& outcome : report.p2p->probes) {
      report.run.interrupted |= outcome.status == "not_run";
    }
  }
  for (const auto& run : runs) report.devices.push_back(run->topology);
  report.run.duration_seconds = seconds_since(run_start);
  if (const int code = write_multi_reports(report, options, plan, out, err); code != 0) return code;
  return combined_exit_code(report, options);
}

}  // namespace memtopo
