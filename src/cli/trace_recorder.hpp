#pragma once
// Connects ProbeContext::record_trace to a TraceSink for --traces. Writing traces must never
// fail a measurement: the first write error is kept (write_error()) and recording stops.
#include <functional>
#include <string>

#include "report/csv_traces.hpp"

namespace memtopo {

class TraceRecorder {
 public:
  // `current_probe` names the probe running now; it labels traces whose probe gave no label.
  TraceRecorder(TraceSink& sink, std::function<std::string()> current_probe);

  void record(const std::string& label, const ChaseSpec& spec, const Trace& trace);
  void record_stream(const std::string& label, const StreamSpec& spec, const StreamResult& result);
  void record_warp_access(const std::string& label, const WarpAccessSpec& spec, const Trace& trace);
  void record_first_touch(const std::string& label, const L2FirstTouchSpec& spec,
                          const L2FirstTouchResult& result);

  const std::string& write_error() const { return write_error_; }

 private:
  // Runs `write` with the label (the current probe's when empty); the first error stops it all.
  template <typename Write>
  void guarded(const std::string& label, Write write);

  TraceSink& sink_;
  std::function<std::string()> current_probe_;
  std::string write_error_;
};

}  // namespace memtopo
