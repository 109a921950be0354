#include "cli/trace_recorder.hpp"

#include <exception>

namespace memtopo {

TraceRecorder::TraceRecorder(TraceSink& sink, std::function<std::string()> current_probe)
    : sink_(sink), current_probe_(std::move(current_probe)) {}

void TraceRecorder::record(const std::string& label, const ChaseSpec& spec, const Trace& trace) {
  if (!write_error_.empty()) return;
  try {
    sink_.record(label.empty() ? current_probe_() : label, spec, trace);
  } catch (const std::exception& error) {
    write_error_ = error.what();
  }
}

void TraceRecorder::record_stream(const std::string& label, const StreamSpec& spec,
                                  const StreamResult& result) {
  if (!write_error_.empty()) return;
  try {
    sink_.record_stream(label.empty() ? current_probe_() : label, spec, result);
  } catch (const std::exception& error) {
    write_error_ = error.what();
  }
}

}  // namespace memtopo
