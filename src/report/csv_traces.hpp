#pragma once
// Raw traces as CSV (for --traces DIR): one file per experiment, so that any number can be
// re-analysed or plotted outside memtopo.
#include <cstddef>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "run/trace_sink.hpp"

namespace memtopo {

// The spec and the trace's context (SM, overhead, clock) on one line, for the CSV header.
std::string describe_experiment(const ChaseSpec& spec, const Trace& trace);

// One experiment as CSV: a "# " comment line naming label and spec, then the header
// "access,chaser,index,cycles" and one row per recorded access. `access` counts from 0 within
// each chaser (chaser k owns the k-th block of spec.timed_loads records).
void write_trace_csv(std::ostream& out, const std::string& label, const ChaseSpec& spec,
                     const Trace& trace);

// Streams as CSV rows, one per timed launch: launch, op, path, placement, footprint_bytes,
// vector_bytes, blocks_per_sm, threads_per_block, unroll, bytes_moved, seconds,
// bytes_per_second, sm_clock_khz, memory_clock_khz (kStreamCsvHeader names them).
extern const char* const kStreamCsvHeader;
void write_stream_rows(std::ostream& out, const StreamSpec& spec, const StreamResult& result);

// A warp access as CSV (csv_experiments.cpp): a "# " line with the spec (word bytes, lane
// offsets, accesses) and the trace's SM, overhead and clock, then "access,index,cycles".
void write_warp_access_csv(std::ostream& out, const std::string& label, const WarpAccessSpec& spec,
                           const Trace& trace);
// An L2 first-touch launch as CSV: a "# " line with warmer, writer and clock, then
// "reader_sm,line,first_cycles,second_cycles,overhead_cycles", one row per reader and line.
void write_first_touch_csv(std::ostream& out, const std::string& label,
                           const L2FirstTouchSpec& spec, const L2FirstTouchResult& result);
// A study's experiments: a "# " line with the spec, then one row per sample: strided requests
// "quantity,sample,value" (seconds per launch, latency cycles per request), barriers and
// spills "sample,cycles,ns" (per barrier or iteration).
void write_strided_csv(std::ostream& out, const std::string& label, const StridedAccessSpec& spec,
                       const StridedAccessResult& result);
void write_barrier_csv(std::ostream& out, const std::string& label, const BarrierSpec& spec,
                       const BarrierRun& run);
void write_spill_csv(std::ostream& out, const std::string& label, const SpillSpec& spec,
                     const SpillRun& run);
// Between GPUs (memory -1: the host): a remote chase "sample,cycles,ns" (per load), a transfer
// "repetition,seconds,bytes".
void write_remote_chase_csv(std::ostream& out, const std::string& label,
                            const RemoteChaseSpec& spec, const RemoteChaseResult& result);
void write_transfer_csv(std::ostream& out, const std::string& label, const TransferSpec& spec,
                        const TransferResult& result);

// Writes each recorded experiment to DIR/NNNNN_<label>.csv, numbered in run order; the streams
// of one label go to one file (numbered when first written), one row per timed launch.
class CsvTraceWriter : public TraceSink {
 public:
  // Creates `directory` if needed; throws OutputError when it cannot be created or written.
  explicit CsvTraceWriter(std::filesystem::path directory);

  // Throws OutputError when the file cannot be written.
  void record_experiment(const std::string& label, const Experiment& experiment) override;
  // DIR/<name>.csv, unnumbered (a study's samples: DIR/<study>_samples.csv).
  void record_table(const std::string& name, const std::string& header,
                    const std::vector<std::string>& rows) override;

  const std::filesystem::path& directory() const { return directory_; }
  std::size_t files_written() const { return files_written_; }

 private:
  std::filesystem::path directory_;
  std::size_t files_written_ = 0;
  struct StreamTraceFile {
    std::filesystem::path path;
    std::string text;  // everything written so far: the file is rewritten whole
  };
  std::map<std::string, StreamTraceFile> stream_files_;  // by label

  // Writes `text` to DIR/NNNNN_<label>.csv (the next number). Throws OutputError.
  void write_numbered(const std::string& label, const std::string& text);
  // Writes `text` to DIR/<name>. Throws OutputError.
  void write_file(const std::string& name, const std::string& text);
  // Appends the stream's rows to its label's file. Throws OutputError.
  void append_stream(const std::string& label, const StreamSpec& spec, const StreamResult& result);
};

}  // namespace memtopo
