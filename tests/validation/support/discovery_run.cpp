#include "support/discovery_run.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>

#include "backend/sim/sim_backend.hpp"
#include "probes/core/probe.hpp"
#include "probes/core/runner.hpp"
#include "support/plan_check.hpp"
#include "support/probe_harness.hpp"

namespace memtopo::validation {

DiscoveryRun run_default_discovery(const std::string& relative_path, std::uint64_t seed) {
  const std::clock_t cpu_start = std::clock();
  auto sim = make_sim_backend_from_file(testing::source_path(relative_path));
  testing::CountingBackend backend(*sim);
  DiscoveryRun run;
  run.topology.run.simulated = true;
  run.topology.run.sim_file = relative_path;
  run.topology.device = backend.facts();
  add_api_facts(run.topology);

  const auto registry = all_probes();
  const std::vector<Probe*> selected = select_probes(registry, {});
  ProbeContext ctx{backend, run.topology, [](const std::string&) {}, [] { return false; }, seed,
                   nullptr};
  // No value surer than what it was planned from (the runner's rule), checked on this run as on
  // every description in memtopo_planned_confidence_tests, which leaves these to this program.
  testing::PlanInputsCheck plan_check(run.topology);
  const auto start = std::chrono::steady_clock::now();
  run_probes(ctx, selected, [&](const Probe& probe) { plan_check.probe_finished(probe.id()); });
  for (const std::string& violation : plan_check.violations()) {
    ADD_FAILURE() << relative_path << ": " << violation;
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  run.loads = backend.loads;
  run.batches = backend.batches;
  for (const ProbeOutcome& outcome : run.topology.run.probes) {
    if (outcome.status != "ok") run.not_ok[outcome.probe_id] = outcome.status + ": " + outcome.reason;
  }
  return run;
}

}  // namespace memtopo::validation
