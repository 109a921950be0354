// The CSV of the experiments that are not chases or streams (report/csv_traces.hpp): warp
// accesses, L2 first-touch launches, the studies' experiments and the p2p family's, so that
// --traces holds every experiment a run made.
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

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

void write_strided_csv(std::ostream& out, const std::string& label, const StridedAccessSpec& spec,
                       const StridedAccessResult& result) {
  out << "# " << label << ": strided requests space=" << to_string(spec.space)
      << " element_bytes=" << spec.element_bytes << " stride_elements=" << spec.stride_elements
      << " start_offset_bytes=" << spec.start_offset_bytes
      << " footprint_bytes=" << spec.footprint_bytes << " blocks_per_sm=" << spec.blocks_per_sm
      << " threads_per_block=" << spec.threads_per_block
      << " requests_per_warp=" << spec.requests_per_warp
      << " requested_bytes=" << result.requested_bytes << " sms=" << result.sms
      << " clock_khz=" << number_text(result.sm_clock_khz) << "\n";
  out << "quantity,sample,value\n";
  for (std::size_t i = 0; i < result.seconds.size(); ++i)
    out << "seconds," << i << "," << number_text(result.seconds[i]) << "\n";
  for (std::size_t i = 0; i < result.latency_cycles.size(); ++i)
    out << "latency_cycles," << i << "," << number_text(result.latency_cycles[i]) << "\n";
}

namespace {

// "sample,cycles,ns": one row per sample of a timed loop.
void write_timed_samples(std::ostream& out, const std::vector<double>& cycles,
                         const std::vector<double>& ns) {
  out << "sample,cycles,ns\n";
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    out << i << "," << number_text(cycles[i]) << ","
        << (i < ns.size() ? number_text(ns[i]) : "") << "\n";
  }
}

}  // namespace

void write_barrier_csv(std::ostream& out, const std::string& label, const BarrierSpec& spec,
                       const BarrierRun& run) {
  out << "# " << label << ": barrier kind=" << to_string(spec.kind)
      << " threads_per_block=" << spec.threads_per_block << " blocks_per_sm=" << spec.blocks_per_sm
      << " cluster_size=" << spec.cluster_size << " barriers=" << spec.barriers
      << " launches=" << spec.launches << " blocks_per_launch=" << run.blocks_per_launch << "\n";
  write_timed_samples(out, run.cycles_per_barrier, run.ns_per_barrier);
}

void write_spill_csv(std::ostream& out, const std::string& label, const SpillSpec& spec,
                     const SpillRun& run) {
  out << "# " << label << ": spill variant=" << spec.variant
      << " threads_per_block=" << spec.threads_per_block << " blocks_per_sm=" << spec.blocks_per_sm
      << " iterations=" << spec.iterations << " launches=" << spec.launches
      << " shared_carveout_percent=" << spec.shared_carveout_percent
      << " warps_per_launch=" << run.warps_per_launch << "\n";
  write_timed_samples(out, run.cycles_per_iteration, run.ns_per_iteration);
}

void write_remote_chase_csv(std::ostream& out, const std::string& label,
                            const RemoteChaseSpec& spec, const RemoteChaseResult& result) {
  out << "# " << label << ": remote chase reader=" << spec.reader << " memory=" << spec.memory
      << " footprint_bytes=" << spec.footprint_bytes << " stride_bytes=" << spec.stride_bytes
      << " loads_per_sample=" << spec.loads_per_sample << " seed=" << spec.seed
      << " clock_khz=" << number_text(result.sm_clock_khz) << "\n";
  write_timed_samples(out, result.cycles_per_load, result.ns_per_load);
}

void write_transfer_csv(std::ostream& out, const std::string& label, const TransferSpec& spec,
                        const TransferResult& result) {
  out << "# " << label << ": transfer actor=" << spec.actor << " memory=" << spec.memory
      << " engine=" << to_string(spec.engine) << " direction=" << to_string(spec.direction)
      << " warmups=" << spec.warmups << " note=" << result.note << "\n";
  out << "repetition,seconds,bytes\n";
  for (std::size_t i = 0; i < result.seconds.size(); ++i)
    out << i << "," << number_text(result.seconds[i]) << "," << result.bytes << "\n";
}

}  // namespace memtopo
