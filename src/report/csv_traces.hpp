#pragma once
// Raw traces as CSV (for --traces DIR): one file per experiment, so that any number can be
// re-analysed or plotted outside memtopo.
#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>

#include "backend/experiment.hpp"

namespace memtopo {

// Receives every experiment a probe runs, labelled with the probe id.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void record(const std::string& label, const ChaseSpec& spec, const Trace& trace) = 0;
};

// The spec and the trace's context (SM, overhead, clock) on one line, for the CSV header.
std::string describe_experiment(const ChaseSpec& spec, const Trace& trace);

// One experiment as CSV: a "# " comment line naming label and spec, then the header
// "access,chaser,index,cycles" and one row per recorded access. `access` counts from 0 within
// each chaser (chaser k owns the k-th block of spec.timed_loads records).
void write_trace_csv(std::ostream& out, const std::string& label, const ChaseSpec& spec,
                     const Trace& trace);

// Writes each recorded experiment to DIR/NNNNN_<label>.csv, numbered in run order.
class CsvTraceWriter : public TraceSink {
 public:
  // Creates `directory` if needed; throws OutputError when it cannot be created or written.
  explicit CsvTraceWriter(std::filesystem::path directory);

  // Throws OutputError when the file cannot be written.
  void record(const std::string& label, const ChaseSpec& spec, const Trace& trace) override;

  const std::filesystem::path& directory() const { return directory_; }
  std::size_t files_written() const { return files_written_; }

 private:
  std::filesystem::path directory_;
  std::size_t files_written_ = 0;
};

}  // namespace memtopo
