#include "cli/trace_recorder.hpp"

#include <exception>

namespace memtopo {

TraceRecorder::TraceRecorder(TraceSink& sink, std::function<std::string()> current_phase)
    : sink_(sink), current_phase_(std::move(current_phase)) {}

template <typename Write>
void TraceRecorder::guarded(const std::string& label, Write write) {
  if (!write_error_.empty()) return;
  try {
    write(label.empty() ? current_phase_() : label);
  } catch (const std::exception& error) {
    write_error_ = error.what();
  }
}

void TraceRecorder::record_experiment(const std::string& label, const Experiment& experiment) {
  guarded(label, [&](const std::string& named) { sink_.record_experiment(named, experiment); });
}

void TraceRecorder::record_table(const std::string& name, const std::string& header,
                                 const std::vector<std::string>& rows) {
  guarded(name, [&](const std::string& named) { sink_.record_table(named, header, rows); });
}

}  // namespace memtopo
