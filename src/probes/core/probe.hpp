#pragma once
// A probe answers one question (`l1.size`, `l2.latency` ...) and writes its findings into the
// topology. Probes only plan experiments and call analysis; they never touch a device directly.
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "model/topology.hpp"
#include "run/context.hpp"

namespace memtopo {

// A probe that does not apply throws the engine's skip; the runner records the reason and goes
// on. Probes run through the engine's context (run/context.hpp).
using ProbeSkipped = Skipped;
using ProbeContext = RunContext;

class Probe {
 public:
  virtual ~Probe() = default;
  virtual std::string id() const = 0;           // "<element>.<property>"
  virtual std::string description() const = 0;  // one line for --list
  // Probe ids whose findings this probe reads; the runner runs them first.
  virtual std::vector<std::string> needs() const { return {}; }
  // Elements besides element_id() whose findings this probe writes (one staircase finds the
  // constant L1 and L1.5); `--only <element>` selects the probe for each of them too.
  virtual std::vector<std::string> also_writes() const { return {}; }
  // Names of groups of probes this one belongs to (e.g. `hopper`): `--only <group>` selects
  // every probe of the group.
  virtual std::vector<std::string> groups() const { return {}; }
  // Measures and writes findings into ctx.topology; throws ProbeSkipped when it does not apply.
  virtual void run(ProbeContext& ctx) = 0;

  std::string element_id() const { return id().substr(0, id().find('.')); }
};

// Every probe memtopo has, in a valid run order (dependencies first).
std::vector<std::unique_ptr<Probe>> all_probes();

}  // namespace memtopo
