#include "run/trace_sink.hpp"

namespace memtopo {

void ForwardingSink::record(const std::string& label, const ChaseSpec& spec, const Trace& trace) {
  if (next_) next_->record(label, spec, trace);
}
void ForwardingSink::record_stream(const std::string& label, const StreamSpec& spec,
                                   const StreamResult& result) {
  if (next_) next_->record_stream(label, spec, result);
}
void ForwardingSink::record_warp_access(const std::string& label, const WarpAccessSpec& spec,
                                        const Trace& trace) {
  if (next_) next_->record_warp_access(label, spec, trace);
}
void ForwardingSink::record_first_touch(const std::string& label, const L2FirstTouchSpec& spec,
                                        const L2FirstTouchResult& result) {
  if (next_) next_->record_first_touch(label, spec, result);
}
void ForwardingSink::record_strided(const std::string& label, const StridedAccessSpec& spec,
                                    const StridedAccessResult& result) {
  if (next_) next_->record_strided(label, spec, result);
}
void ForwardingSink::record_barrier(const std::string& label, const BarrierSpec& spec,
                                    const BarrierRun& run) {
  if (next_) next_->record_barrier(label, spec, run);
}
void ForwardingSink::record_spill(const std::string& label, const SpillSpec& spec,
                                  const SpillRun& run) {
  if (next_) next_->record_spill(label, spec, run);
}
void ForwardingSink::record_table(const std::string& name, const std::string& header,
                                  const std::vector<std::string>& rows) {
  if (next_) next_->record_table(name, header, rows);
}

}  // namespace memtopo
