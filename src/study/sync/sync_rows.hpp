#pragma once
// The sync study's rows, traces and findings: every barrier configuration measured becomes a
// row of the `syncthreads` table or of the `other_barriers` table as soon as it is measured
// (a stop part-way keeps them); finish() adds the findings and the trace file.
#include <string>
#include <vector>

#include "backend/study_kernels.hpp"
#include "study/result.hpp"
#include "study/study.hpp"

namespace memtopo::study {

class SyncTables {
 public:
  // Adds the two (empty) tables to `result`, which must outlive this.
  explicit SyncTables(StudyResult& result);

  // Runs `spec`, appends its row and keeps its samples for the trace file.
  void measure(const StudyContext& context, const BarrierSpec& spec);
  // A remark for the result's notes (a barrier kind this device lacks).
  void note(std::string text);
  // The findings (cost against threads per block at 1 block per SM, against blocks per SM at
  // `blocks_threads` threads, and one per other kind), then the samples to --traces.
  void finish(StudyContext& context, std::uint32_t blocks_threads, double rising_tolerance);

  struct Row {
    BarrierSpec spec;
    BarrierRun run;
    Cell cycles;
    Cell nanoseconds;
  };

 private:
  Table& syncthreads_table();
  Table& other_table();
  const Row* find(BarrierKind kind, std::uint32_t threads, std::uint32_t blocks_per_sm) const;
  void threads_finding(double rising_tolerance);
  void blocks_finding(std::uint32_t threads, double rising_tolerance);
  void other_findings();

  StudyResult& result_;
  std::size_t syncthreads_index_ = 0;
  std::size_t other_index_ = 0;
  std::vector<Row> rows_;
  std::vector<std::string> trace_rows_;
};

// One line per sample: "kind,threads,blocks_per_sm,cluster_size,sample,cycles,ns".
inline constexpr const char* kSyncTraceHeader =
    "barrier,threads_per_block,blocks_per_sm,cluster_size,sample,cycles_per_barrier,"
    "ns_per_barrier";

}  // namespace memtopo::study
