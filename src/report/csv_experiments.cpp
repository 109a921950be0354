// The CSV of the experiments that are not chases or streams (report/csv_traces.hpp): warp
// accesses and L2 first-touch launches, so that --traces holds every experiment a run made.
#include <cstdio>
#include <ostream>
#include <string>

#include "report/csv_traces.hpp"

namespace memtopo {
namespace {

std::string number_text(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

}  // namespace

void write_warp_access_csv(std::ostream& out, const std::string& label, const WarpAccessSpec& spec,
                           const Trace& trace) {
  out << "# " << label << ": warp access word_bytes=" << spec.word_bytes
      << " warm_accesses=" << spec.warm_accesses << " timed_accesses=" << spec.timed_accesses
      << " lane_offsets=";
  for (std::size_t lane = 0; lane < spec.lane_offsets.size(); ++lane) {
    out << (lane ? ";" : "") << spec.lane_offsets[lane];
  }
  out << " | ran_on_sm=" << trace.sm_id << " overhead_cycles=" << number_text(trace.overhead_cycles)
      << " clock_khz=" << number_text(trace.clock_khz) << "\n";
  out << "access,index,cycles\n";
  for (std::size_t i = 0; i < trace.cycles.size(); ++i) {
    out << i << "," << (i < trace.indices.size() ? std::to_string(trace.indices[i]) : "") << ","
        << trace.cycles[i] << "\n";
  }
}

void write_first_touch_csv(std::ostream& out, const std::string& label,
                           const L2FirstTouchSpec& spec, const L2FirstTouchResult& result) {
  out << "# " << label << ": L2 first touch lines_per_reader=" << spec.lines_per_reader
      << " warmer_sm=" << result.warmer_sm << " writer_sm=" << result.writer_sm
      << " clock_khz=" << number_text(result.clock_khz) << "\n";
  out << "reader_sm,line,first_cycles,second_cycles,overhead_cycles\n";
  for (const L2ReaderTouches& reader : result.readers) {
    for (std::size_t line = 0; line < reader.first_cycles.size(); ++line) {
      out << reader.sm_id << "," << line << "," << reader.first_cycles[line] << ","
          << (line < reader.second_cycles.size() ? std::to_string(reader.second_cycles[line]) : "")
          << "," << number_text(reader.overhead_cycles) << "\n";
    }
  }
}

}  // namespace memtopo
