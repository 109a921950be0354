#include "study/sync/sync_rows.hpp"

#include <algorithm>

#include "analysis/confidence.hpp"
#include "study/kernel_study.hpp"
#include "study/trend.hpp"

namespace memtopo::study {
namespace {

constexpr const char* kCyclesMethod =
    "thread 0 of every block: clock64 around a loop of barriers (16 per trip) after one "
    "untimed barrier, divided by the barriers; p50 over every block of every timed launch";
constexpr const char* kNsMethod =
    "the same loop timed with %globaltimer (ns), divided by the barriers; p50 over the blocks "
    "and launches";

std::vector<Column> syncthreads_columns() {
  return {{"threads_per_block", "", ColumnRole::parameter, ""},
          {"blocks_per_sm", "", ColumnRole::parameter, ""},
          {"blocks_on_busiest_sm", "", ColumnRole::derived,
           "most blocks of one launch whose thread 0 read the same %smid (over the launches)"},
          {"cycles_per_barrier", "cycles", ColumnRole::measured, kCyclesMethod},
          {"ns_per_barrier", "seconds", ColumnRole::measured, kNsMethod}};
}

std::vector<Column> other_columns() {
  return {{"barrier", "", ColumnRole::parameter, ""},
          {"threads_per_block", "", ColumnRole::parameter, ""},
          {"blocks_per_sm", "", ColumnRole::parameter, ""},
          {"cluster_size", "", ColumnRole::parameter, ""},
          {"blocks_per_launch", "", ColumnRole::parameter, ""},
          {"cycles_per_barrier", "cycles", ColumnRole::measured, kCyclesMethod},
          {"ns_per_barrier", "seconds", ColumnRole::measured, kNsMethod},
          {"ratio_to_syncthreads", "", ColumnRole::derived,
           "cycles over __syncthreads' at the same threads per block and blocks per SM"}};
}

constexpr double kSecondsPerNanosecond = 1e-9;

// The ns cell in base units (seconds): the samples scaled, so spread and confidence follow.
Cell seconds_cell(const std::vector<double>& nanoseconds) {
  std::vector<double> seconds(nanoseconds);
  for (double& value : seconds) value *= kSecondsPerNanosecond;
  return timing_cell(seconds);
}

double p50(const Cell& cell) {
  return cell.value.get<double>();
}

std::string barrier_name(BarrierKind kind) {
  switch (kind) {
    case BarrierKind::block:
      return "__syncthreads";
    case BarrierKind::warp:
      return "__syncwarp";
    case BarrierKind::grid:
      return "grid sync";
    case BarrierKind::cluster:
      return "cluster barrier";
  }
  return "barrier";
}

std::string cycles_and_ns(const SyncTables::Row& row) {
  return fixed(p50(row.cycles)) + " cycles (" + fixed(p50(row.nanoseconds) * 1e9) + " ns)";
}

}  // namespace

SyncTables::SyncTables(StudyResult& result) : result_(result) {
  syncthreads_index_ = result_.tables.size();
  result_.tables.push_back(Table{"syncthreads",
                                 "__syncthreads: cost per barrier by threads per block and "
                                 "blocks per SM",
                                 syncthreads_columns(),
                                 {},
                                 TablePlot{"threads_per_block", true, "blocks_per_sm",
                                           {"cycles_per_barrier"}}});
  other_index_ = result_.tables.size();
  result_.tables.push_back(Table{"other_barriers",
                                 "__syncwarp, grid-wide sync (cooperative launch), cluster "
                                 "barrier",
                                 other_columns(),
                                 {},
                                 std::nullopt});
}

Table& SyncTables::syncthreads_table() {
  return result_.tables[syncthreads_index_];
}
Table& SyncTables::other_table() {
  return result_.tables[other_index_];
}

void SyncTables::measure(const StudyContext& context, const BarrierSpec& spec) {
  Row row{spec, context.run_barrier(spec), {}, {}};
  row.cycles = timing_cell(row.run.cycles_per_barrier);
  row.nanoseconds = seconds_cell(row.run.ns_per_barrier);
  for (std::size_t i = 0; i < row.run.cycles_per_barrier.size(); ++i) {
    trace_rows_.push_back(
        std::string(to_string(spec.kind)) + "," + std::to_string(spec.threads_per_block) + "," +
        std::to_string(spec.blocks_per_sm) + "," + std::to_string(spec.cluster_size) + "," +
        std::to_string(i) + "," + std::to_string(row.run.cycles_per_barrier[i]) + "," +
        std::to_string(row.run.ns_per_barrier[i]));
  }
  if (spec.kind == BarrierKind::block) {
    syncthreads_table().rows.push_back(
        {number_cell(spec.threads_per_block), number_cell(spec.blocks_per_sm),
         number_cell(row.run.most_blocks_on_one_sm), row.cycles, row.nanoseconds});
  } else {
    const Row* reference = find(BarrierKind::block, spec.threads_per_block, spec.blocks_per_sm);
    other_table().rows.push_back(
        {text_cell(barrier_name(spec.kind)), number_cell(spec.threads_per_block),
         number_cell(spec.blocks_per_sm),
         spec.kind == BarrierKind::cluster ? number_cell(spec.cluster_size)
                                           : missing_cell("not a cluster launch"),
         number_cell(row.run.blocks_per_launch), row.cycles, row.nanoseconds,
         reference != nullptr && p50(reference->cycles) > 0
             ? number_cell(p50(row.cycles) / p50(reference->cycles))
             : missing_cell("no __syncthreads row at these threads and blocks per SM")});
  }
  rows_.push_back(std::move(row));
}

void SyncTables::note(std::string text) {
  result_.notes.push_back(std::move(text));
}

const SyncTables::Row* SyncTables::find(BarrierKind kind, std::uint32_t threads,
                                        std::uint32_t blocks_per_sm) const {
  for (const Row& row : rows_) {
    if (row.spec.kind == kind && row.spec.threads_per_block == threads &&
        row.spec.blocks_per_sm == blocks_per_sm) {
      return &row;
    }
  }
  return nullptr;
}

void SyncTables::finish(StudyContext& context, std::uint32_t blocks_threads,
                        double rising_tolerance) {
  threads_finding(rising_tolerance);
  blocks_finding(blocks_threads, rising_tolerance);
  other_findings();
  if (context.traces) context.traces->record_table(result_.id + "_samples", kSyncTraceHeader, trace_rows_);
}

// Cost against threads per block, one block per SM: the first and last of the sweep quoted,
// the rows between checked for a steady rise.
void SyncTables::threads_finding(double rising_tolerance) {
  std::vector<const Row*> curve;
  for (const Row& row : rows_) {
    if (row.spec.kind == BarrierKind::block && row.spec.blocks_per_sm == 1) curve.push_back(&row);
  }
  if (curve.size() < 2) return;
  std::vector<double> cycles;
  for (const Row* row : curve) cycles.push_back(p50(row->cycles));
  const PairCount order = non_decreasing_pairs(cycles, rising_tolerance);
  const Row& first = *curve.front();
  const Row& last = *curve.back();
  Finding finding;
  finding.table = "syncthreads";
  finding.at = {{"blocks_per_sm", 1},
                {"threads_per_block", {first.spec.threads_per_block, last.spec.threads_per_block}}};
  const bool rising = order.in_order == order.pairs && cycles.back() > cycles.front();
  finding.what = "__syncthreads costs " + cycles_and_ns(first) + " at " +
                 std::to_string(first.spec.threads_per_block) + " threads per block, " +
                 (rising ? "rising to " : "and ") + cycles_and_ns(last) + " at " +
                 std::to_string(last.spec.threads_per_block) + " (one block per SM)";
  finding.why = rising ? "every warp of the block must arrive before any may leave: more warps "
                         "per block, more arrivals to wait for"
                       : "the cost does not rise steadily with the warps the barrier waits for "
                         "(" +
                             std::to_string(order.pairs - order.in_order) + " of " +
                             std::to_string(order.pairs) + " steps fell)";
  const Confidence confidence{agreement(order.in_order, order.pairs,
                                        "steps of threads per block where the cost did "
                                        "not fall"),
                              quoted_cells({&first.cycles, &last.cycles}, "quoted p50s")};
  finding.confidence = confidence.value();
  result_.findings.push_back(std::move(finding));
}

// Cost as each block sees it, against blocks sharing the SM, at `threads` threads per block.
void SyncTables::blocks_finding(std::uint32_t threads, double rising_tolerance) {
  std::vector<const Row*> curve;
  for (const Row& row : rows_) {
    if (row.spec.kind == BarrierKind::block && row.spec.threads_per_block == threads) {
      curve.push_back(&row);
    }
  }
  if (curve.size() < 2) return;
  std::vector<double> cycles;
  for (const Row* row : curve) cycles.push_back(p50(row->cycles));
  const PairCount order = non_decreasing_pairs(cycles, rising_tolerance);
  const Row& first = *curve.front();
  const Row& last = *curve.back();
  Finding finding;
  finding.table = "syncthreads";
  finding.at = {{"threads_per_block", threads},
                {"blocks_per_sm", {first.spec.blocks_per_sm, last.spec.blocks_per_sm}}};
  finding.what = "at " + std::to_string(threads) + " threads per block, a block's barrier takes " +
                 cycles_and_ns(first) + " alone on its SM and " + cycles_and_ns(last) + " with " +
                 std::to_string(last.spec.blocks_per_sm) + " blocks per SM (" +
                 fixed(p50(last.cycles) / p50(first.cycles), 2) + "x)";
  finding.why =
      "blocks on one SM share its warp schedulers, so each block's barriers are "
      "spread over more cycles; per SM, " +
      fixed(p50(last.cycles) / last.spec.blocks_per_sm) +
      " cycles per barrier per block at the most blocks";
  const Confidence confidence{agreement(order.in_order, order.pairs,
                                        "steps of blocks per SM where the cost did not "
                                        "fall"),
                              quoted_cells({&first.cycles, &last.cycles}, "quoted p50s")};
  finding.confidence = confidence.value();
  result_.findings.push_back(std::move(finding));
}

// One finding per other kind: its cheapest and dearest configuration, against __syncthreads.
void SyncTables::other_findings() {
  for (const BarrierKind kind : {BarrierKind::warp, BarrierKind::grid, BarrierKind::cluster}) {
    std::vector<const Row*> kind_rows;
    for (const Row& row : rows_) {
      if (row.spec.kind == kind) kind_rows.push_back(&row);
    }
    if (kind_rows.empty()) continue;
    const auto by_cycles = [](const Row* a, const Row* b) {
      return p50(a->cycles) < p50(b->cycles);
    };
    const Row& low = **std::min_element(kind_rows.begin(), kind_rows.end(), by_cycles);
    const Row& high = **std::max_element(kind_rows.begin(), kind_rows.end(), by_cycles);
    const auto where = [](const Row& row) {
      std::string text = std::to_string(row.spec.threads_per_block) + " threads per block";
      if (row.spec.kind == BarrierKind::cluster) {
        text += ", clusters of " + std::to_string(row.spec.cluster_size);
      } else {
        text += ", " + std::to_string(row.spec.blocks_per_sm) + " per SM";
      }
      return text;
    };
    Finding finding;
    finding.table = "other_barriers";
    finding.at = {{"barrier", to_string(kind)}};
    finding.what = barrier_name(kind) + " costs " + cycles_and_ns(low) + " (" + where(low) + ")";
    if (&low != &high) finding.what += " to " + cycles_and_ns(high) + " (" + where(high) + ")";
    const Row* reference = find(BarrierKind::block, low.spec.threads_per_block, 1);
    finding.why = kind == BarrierKind::warp   ? "only the 32 lanes of one warp take part"
                  : kind == BarrierKind::grid ? "every block of the grid arrives through global "
                                                "memory before any may leave"
                                              : "the blocks of a cluster arrive through the "
                                                "cluster's distributed shared-memory barrier";
    if (reference != nullptr && p50(reference->cycles) > 0) {
      finding.why += "; __syncthreads at " + std::to_string(low.spec.threads_per_block) +
                     " threads costs " + cycles_and_ns(*reference);
    }
    const Confidence confidence{quoted_cells({&low.cycles, &high.cycles}, "quoted p50s")};
    finding.confidence = confidence.value();
    result_.findings.push_back(std::move(finding));
  }
}

}  // namespace memtopo::study
