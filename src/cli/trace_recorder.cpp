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

void TraceRecorder::record_strided(const std::string& label, const StridedAccessSpec& spec,
                                   const StridedAccessResult& result) {
  guarded(label, [&](const std::string& named) { sink_.record_strided(named, spec, result); });
}

void TraceRecorder::record_barrier(const std::string& label, const BarrierSpec& spec,
                                   const BarrierRun& run) {
  guarded(label, [&](const std::string& named) { sink_.record_barrier(named, spec, run); });
}

void TraceRecorder::record_spill(const std::string& label, const SpillSpec& spec,
                                 const SpillRun& run) {
  guarded(label, [&](const std::string& named) { sink_.record_spill(named, spec, run); });
}

void TraceRecorder::record_table(const std::string& name, const std::string& header,
                                 const std::vector<std::string>& rows) {
  guarded(name, [&](const std::string& named) { sink_.record_table(named, header, rows); });
}

}  // namespace memtopo
