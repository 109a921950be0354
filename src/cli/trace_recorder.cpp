#include "cli/trace_recorder.hpp"

#include <exception>

namespace memtopo {

TraceRecorder::TraceRecorder(TraceSink& sink, std::function<std::string()> current_probe)
    : sink_(sink), current_probe_(std::move(current_probe)) {}

template <typename Write>
void TraceRecorder::guarded(const std::string& label, Write write) {
  if (!write_error_.empty()) return;
  try {
    write(label.empty() ? current_probe_() : label);
  } catch (const std::exception& error) {
    write_error_ = error.what();
  }
}

void TraceRecorder::record(const std::string& label, const ChaseSpec& spec, const Trace& trace) {
  guarded(label, [&](const std::string& named) { sink_.record(named, spec, trace); });
}

void TraceRecorder::record_stream(const std::string& label, const StreamSpec& spec,
                                  const StreamResult& result) {
  guarded(label, [&](const std::string& named) { sink_.record_stream(named, spec, result); });
}

void TraceRecorder::record_warp_access(const std::string& label, const WarpAccessSpec& spec,
                                       const Trace& trace) {
  guarded(label, [&](const std::string& named) { sink_.record_warp_access(named, spec, trace); });
}

void TraceRecorder::record_first_touch(const std::string& label, const L2FirstTouchSpec& spec,
                                       const L2FirstTouchResult& result) {
  guarded(label, [&](const std::string& named) { sink_.record_first_touch(named, spec, result); });
}

}  // namespace memtopo
