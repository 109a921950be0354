#pragma once
// The spilling study's tables and findings: one table per launch configuration (one warp per
// SM; several warps per SM), one row per build of the spilling kernel, appended as measured.
#include <string>
#include <vector>

#include "backend/study_kernels.hpp"
#include "study/result.hpp"
#include "study/study.hpp"

namespace memtopo::study {

// A launch configuration of the sweep.
struct SpillConfig {
  std::string id;     // table id suffix: "one_warp", "512_threads"
  std::string title;  // "one warp per SM"
  std::uint32_t threads_per_block = 32;
  std::uint32_t blocks_per_sm = 1;
  int shared_carveout_percent = SpillSpec::kDefaultCarveout;  // 100: L1 at its smallest
};

class SpillTable {
 public:
  // Adds the (empty) table for `config` to `result`, which must outlive this.
  SpillTable(StudyResult& result, SpillConfig config, std::uint32_t sm_count);

  // Runs every build under the configuration, one row each (a build that does not fit the
  // configuration gets a row of missing cells), and appends its samples to `trace_rows`.
  void measure(StudyContext& context, StudyKernels& kernels, std::uint32_t iterations,
               std::uint32_t launches, std::vector<std::string>& trace_rows);
  // The cost per spilled word (a line through time per iteration against local bytes) and
  // the slowdown of the tightest build.
  void add_findings(double rising_tolerance);

 private:
  struct Row {
    SpillVariant variant;
    Cell cycles;
    Cell seconds;
  };
  Table& table();

  StudyResult& result_;
  std::size_t index_ = 0;
  SpillConfig config_;
  std::uint32_t sm_count_ = 0;
  std::vector<Row> rows_;
};

// How the tightest build's slowdown changes when L1 shrinks: the tables `with_default_l1` and
// `with_small_l1` (the same threads, the carveout at `small_carveout_percent`), compared on
// their last rows.
void add_l1_finding(StudyResult& result, const std::string& with_default_l1,
                    const std::string& with_small_l1, int small_carveout_percent);

inline constexpr const char* kSpillTraceHeader =
    "configuration,register_limit,registers,local_bytes,sample,cycles_per_iteration,"
    "ns_per_iteration";

}  // namespace memtopo::study
