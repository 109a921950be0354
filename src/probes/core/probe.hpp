#pragma once
// A probe answers one question (`l1.size`, `l2.latency` ...) and writes its findings into the
// topology. Probes only plan experiments and call analysis; they never touch a device directly.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "model/topology.hpp"
#include "probes/core/sm_clock_log.hpp"

namespace memtopo {

// Thrown by a probe that does not apply (no texture support, nothing to measure); the runner
// records the reason and goes on.
class ProbeSkipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when the user interrupted the run; what was measured so far is kept.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

struct ProbeContext {
  Backend& backend;
  Topology& topology;
  // Progress lines for stderr during long phases ("l1.size: doubling 64 KiB").
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  // Returns true once the user asked to stop; probes call check_interrupted() between batches.
  std::function<bool()> interrupted = [] { return false; };
  std::uint64_t seed = 1;  // base seed for every random choice a probe makes
  // Receives every trace a probe's batches produce (--traces DIR writes them as CSV); `label`
  // says which probe and step made it, e.g. "l1.size/scan".
  std::function<void(const std::string& label, const ChaseSpec&, const Trace&)> record_trace;
  // Receives every stream a probe runs (--traces DIR writes them as CSV rows), labelled alike.
  std::function<void(const std::string& label, const StreamSpec&, const StreamResult&)>
      record_stream = nullptr;
  // Receives every warp access and every L2 first-touch launch, labelled alike.
  std::function<void(const std::string& label, const WarpAccessSpec&, const Trace&)>
      record_warp_access = nullptr;
  std::function<void(const std::string& label, const L2FirstTouchSpec&,
                     const L2FirstTouchResult&)>
      record_first_touch = nullptr;
  // Every SM clock a chase or a stream of this run measured (run and run_stream add them).
  std::shared_ptr<SmClockLog> sm_clocks = std::make_shared<SmClockLog>();

  void check_interrupted() const {
    if (interrupted()) throw Interrupted();
  }
  // Runs a batch on the backend, checking for an interrupt first, and hands every trace to
  // record_trace under `label`.
  std::vector<Trace> run(std::span<const ChaseSpec> batch, const std::string& label = "") const {
    check_interrupted();
    auto traces = backend.run(batch);
    for (const Trace& trace : traces) sm_clocks->add(trace.clock_khz);
    if (record_trace) {
      for (std::size_t i = 0; i < traces.size(); ++i) record_trace(label, batch[i], traces[i]);
    }
    return traces;
  }
  // Runs one stream on the backend, checking for an interrupt first, and hands the result to
  // record_stream under `label`. Throws StreamsUnsupported where the backend runs no streams.
  StreamResult run_stream(const StreamSpec& spec, const std::string& label = "") const;
  // Runs warp accesses (backend/warp_access.hpp) and one L2 first-touch launch
  // (backend/l2_first_touch.hpp) the same way: an interrupt checked first, the SM clock logged,
  // every trace to its recorder. A backend without the capability: ProbeSkipped, saying so.
  std::vector<Trace> run_warp_access(std::span<const WarpAccessSpec> batch,
                                     const std::string& label = "") const;
  L2FirstTouchResult run_l2_first_touch(const L2FirstTouchSpec& spec,
                                        const std::string& label = "") const;
};

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
