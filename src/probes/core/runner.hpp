#pragma once
// Runs a selection of probes in dependency order, timing each as a phase.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

// An --only entry that names no probe and no element.
class SelectionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Resolves --only entries (probe ids like "l1.size" or element ids like "l1", which select
// every probe of that element) against `probes`, adds the probes they need, and returns them
// in run order. An empty `only` selects every probe. Throws SelectionError for an unknown id.
std::vector<Probe*> select_probes(const std::vector<std::unique_ptr<Probe>>& probes,
                                  const std::vector<std::string>& only);

// Adds the device facts that belong to memory elements (L2 size, shared memory per SM, DRAM
// size ...) as `source: api` properties, so that reports show them beside measured values.
void add_api_facts(Topology& topology);

// Runs `selected` in order, each under the rule of inheritance.hpp (no value surer than the
// findings its plan read). Each probe is one phase in topology.run.phases (seconds, SM clock
// before/after) and one outcome in topology.run.probes: ok, skipped (ProbeSkipped; or a lack of
// device memory: OutOfMemoryError, MemoryUnavailableError), failed (any other exception; the
// message becomes the reason and a warning). On Interrupted the
// remaining probes are marked not_run, topology.run.interrupted is set and Interrupted is
// rethrown so the caller can still write what was measured.
//
// `after_each`, when set, is called after every probe that was not interrupted, once its outcome
// and phase are recorded: the CLI writes a checkpoint of the results there.
using ProbeFinished = std::function<void(const Probe&)>;
void run_probes(ProbeContext& ctx, const std::vector<Probe*>& selected,
                const ProbeFinished& after_each = {});

// True for a probe that run_probes skipped because the device memory it needed was not free.
bool skipped_for_lack_of_memory(const ProbeOutcome& outcome);

}  // namespace memtopo
