#pragma once
// The run engine's one trace sink: every experiment a run makes (a chase, a stream, a warp
// access, an L2 first touch, a strided request, a barrier, a spill) reaches it through
// RunContext, labelled with what made it ("l1.size/scan"; empty: the phase running). --traces
// DIR writes them as CSV (report/csv_traces.hpp); the phase monitor taps the chases.
#include <string>
#include <vector>

#include "backend/experiment.hpp"
#include "backend/l2_first_touch.hpp"
#include "backend/stream.hpp"
#include "backend/strided_access.hpp"
#include "backend/study_kernels.hpp"
#include "backend/warp_access.hpp"

namespace memtopo {

// Every method has a default that ignores the experiment: a sink takes what it cares about.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void record(const std::string& /*label*/, const ChaseSpec& /*spec*/,
                      const Trace& /*trace*/) {}
  virtual void record_stream(const std::string& /*label*/, const StreamSpec& /*spec*/,
                             const StreamResult& /*result*/) {}
  virtual void record_warp_access(const std::string& /*label*/, const WarpAccessSpec& /*spec*/,
                                  const Trace& /*trace*/) {}
  virtual void record_first_touch(const std::string& /*label*/,
                                  const L2FirstTouchSpec& /*spec*/,
                                  const L2FirstTouchResult& /*result*/) {}
  virtual void record_strided(const std::string& /*label*/, const StridedAccessSpec& /*spec*/,
                              const StridedAccessResult& /*result*/) {}
  virtual void record_barrier(const std::string& /*label*/, const BarrierSpec& /*spec*/,
                              const BarrierRun& /*run*/) {}
  virtual void record_spill(const std::string& /*label*/, const SpillSpec& /*spec*/,
                            const SpillRun& /*run*/) {}
  // A table a run writes of its own (a study's samples: DIR/<name>.csv): `header` the
  // comma-separated column names, each row already formatted.
  virtual void record_table(const std::string& /*name*/, const std::string& /*header*/,
                            const std::vector<std::string>& /*rows*/) {}
};

// A sink that hands everything on to `next` (nullptr: nowhere); decorators (a tap, a labeller)
// derive from it and override what they look at.
class ForwardingSink : public TraceSink {
 public:
  explicit ForwardingSink(TraceSink* next) : next_(next) {}
  void record(const std::string& label, const ChaseSpec& spec, const Trace& trace) override;
  void record_stream(const std::string& label, const StreamSpec& spec,
                     const StreamResult& result) override;
  void record_warp_access(const std::string& label, const WarpAccessSpec& spec,
                          const Trace& trace) override;
  void record_first_touch(const std::string& label, const L2FirstTouchSpec& spec,
                          const L2FirstTouchResult& result) override;
  void record_strided(const std::string& label, const StridedAccessSpec& spec,
                      const StridedAccessResult& result) override;
  void record_barrier(const std::string& label, const BarrierSpec& spec,
                      const BarrierRun& run) override;
  void record_spill(const std::string& label, const SpillSpec& spec, const SpillRun& run) override;
  void record_table(const std::string& name, const std::string& header,
                    const std::vector<std::string>& rows) override;

 protected:
  TraceSink* next() const { return next_; }

 private:
  TraceSink* next_;
};

}  // namespace memtopo
