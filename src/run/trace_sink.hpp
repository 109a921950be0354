#pragma once
// The run engine's one trace sink: every experiment a run makes (a chase, a stream, a warp
// access, an L2 first touch, a strided request, a barrier, a spill, and between GPUs a remote
// chase or a transfer) reaches it through
// RunContext, labelled with what made it ("l1.size/scan"; empty: the phase running). --traces
// DIR writes them as CSV (report/csv_traces.hpp); the phase monitor taps the chases.
#include <string>
#include <variant>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/l2_first_touch.hpp"
#include "backend/p2p.hpp"
#include "backend/stream.hpp"
#include "backend/strided_access.hpp"
#include "backend/study_kernels.hpp"
#include "backend/warp_access.hpp"

namespace memtopo {

// One experiment as a sink sees it: what was asked and what came back (both outlive the call).
template <typename Spec, typename Result>
struct Recorded {
  using SpecType = Spec;
  using ResultType = Result;
  const Spec& spec;
  const Result& result;
};
using ChaseRecord = Recorded<ChaseSpec, Trace>;
using StreamRecord = Recorded<StreamSpec, StreamResult>;
using WarpAccessRecord = Recorded<WarpAccessSpec, Trace>;
using FirstTouchRecord = Recorded<L2FirstTouchSpec, L2FirstTouchResult>;
using StridedRecord = Recorded<StridedAccessSpec, StridedAccessResult>;
using BarrierRecord = Recorded<BarrierSpec, BarrierRun>;
using SpillRecord = Recorded<SpillSpec, SpillRun>;
using RemoteChaseRecord = Recorded<RemoteChaseSpec, RemoteChaseResult>;
using TransferRecord = Recorded<TransferSpec, TransferResult>;
using Experiment =
    std::variant<ChaseRecord, StreamRecord, WarpAccessRecord, FirstTouchRecord, StridedRecord,
                 BarrierRecord, SpillRecord, RemoteChaseRecord, TransferRecord>;

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Every experiment of the run; a sink takes the kinds it cares about and ignores the rest.
  virtual void record_experiment(const std::string& label, const Experiment& experiment) = 0;
  // A table a run writes of its own (a study's samples: DIR/<name>.csv): `header` the
  // comma-separated column names, each row already formatted. Ignored by default.
  virtual void record_table(const std::string& /*name*/, const std::string& /*header*/,
                            const std::vector<std::string>& /*rows*/) {}

  // record_experiment, spelled per kind.
  void record(const std::string& label, const ChaseSpec& spec, const Trace& trace) {
    record_experiment(label, ChaseRecord{spec, trace});
  }
  void record_stream(const std::string& label, const StreamSpec& spec,
                     const StreamResult& result) {
    record_experiment(label, StreamRecord{spec, result});
  }
};

// A sink that hands everything on to `next` (nullptr: nowhere); decorators (a tap, a labeller)
// derive from it and override what they look at.
class ForwardingSink : public TraceSink {
 public:
  explicit ForwardingSink(TraceSink* next) : next_(next) {}
  void record_experiment(const std::string& label, const Experiment& experiment) override {
    if (next_) next_->record_experiment(label, experiment);
  }
  void record_table(const std::string& name, const std::string& header,
                    const std::vector<std::string>& rows) override {
    if (next_) next_->record_table(name, header, rows);
  }

 protected:
  TraceSink* next() const { return next_; }

 private:
  TraceSink* next_;
};

}  // namespace memtopo
