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

  const std::string& write_error() const { return write_error_; }

 private:
  TraceSink& sink_;
  std::function<std::string()> current_probe_;
  std::string write_error_;
};

}  // namespace memtopo
