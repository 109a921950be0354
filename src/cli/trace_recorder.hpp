#pragma once
// The trace sink a run hands its context for --traces (run/trace_sink.hpp): it names the
// experiments whose run gave no label after the phase running now and passes them to the CSV
// writer. Writing traces must never fail a measurement: the first write error is kept
// (write_error()) and recording stops.
#include <functional>
#include <string>
#include <vector>

#include "run/trace_sink.hpp"

namespace memtopo {

class TraceRecorder : public TraceSink {
 public:
  // `current_phase` names the probe or study running now; it labels unlabelled experiments.
  TraceRecorder(TraceSink& sink, std::function<std::string()> current_phase);

  void record_experiment(const std::string& label, const Experiment& experiment) override;
  void record_table(const std::string& name, const std::string& header,
                    const std::vector<std::string>& rows) override;

  const std::string& write_error() const { return write_error_; }

 private:
  // Runs `write` with the label (the current phase's when empty); the first error stops it all.
  template <typename Write>
  void guarded(const std::string& label, Write write);

  TraceSink& sink_;
  std::function<std::string()> current_phase_;
  std::string write_error_;
};

}  // namespace memtopo
