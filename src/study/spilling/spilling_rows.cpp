#include "study/spilling/spilling_rows.hpp"

#include <algorithm>

#include "analysis/confidence.hpp"
#include "model/units.hpp"
#include "study/kernel_study.hpp"
#include "study/trend.hpp"

namespace memtopo::study {
namespace {

constexpr double kSecondsPerNanosecond = 1e-9;
constexpr double kNanosecondsPerSecond = 1e9;
constexpr std::uint32_t kWordBytes = 4;
constexpr std::uint32_t kWarpSize = 32;

std::vector<Column> spill_columns() {
  return {
      {"register_limit", "", ColumnRole::parameter, ""},
      {"registers", "", ColumnRole::parameter,
       "registers per thread of the loaded build (cudaFuncGetAttributes numRegs)"},
      {"local_bytes", "bytes", ColumnRole::parameter,
       "local memory per thread of the loaded build (cudaFuncGetAttributes localSizeBytes): "
       "the spill slots"},
      {"ptxas_spill_store_bytes", "bytes", ColumnRole::parameter,
       "ptxas -v at build time: bytes of spill stores in the code (static, per thread)"},
      {"ptxas_spill_load_bytes", "bytes", ColumnRole::parameter,
       "ptxas -v at build time: bytes of spill loads in the code (static, per thread)"},
      {"cycles_per_iteration", "cycles", ColumnRole::measured,
       "lane 0 of every warp: clock64 around the loop, divided by the iterations; p50 over "
       "every warp of every timed launch"},
      {"seconds_per_iteration", "seconds", ColumnRole::measured,
       "the same loop timed with %globaltimer, divided by the iterations; p50"},
      {"slowdown", "", ColumnRole::derived, "cycles per iteration over the unlimited build's"},
      {"local_traffic", "bytes/second", ColumnRole::derived,
       "estimate: ptxas' spill store + load bytes (taken as run once per iteration: the loop "
       "body holds the spill code) x threads on the device / seconds per iteration"},
  };
}

std::vector<double> scaled(std::vector<double> values, double factor) {
  for (double& value : values) value *= factor;
  return values;
}

double p50(const Cell& cell) {
  return cell.value.get<double>();
}

Cell optional_bytes(const std::optional<std::uint32_t>& bytes) {
  return bytes ? number_cell(*bytes) : missing_cell("ptxas counts not captured for this device");
}

}  // namespace

SpillTable::SpillTable(StudyResult& result, SpillConfig config, std::uint32_t sm_count)
    : result_(result), config_(std::move(config)), sm_count_(sm_count) {
  index_ = result_.tables.size();
  result_.tables.push_back(Table{"spilling_" + config_.id,
                                 "Spilling: one kernel under register limits, " + config_.title,
                                 spill_columns(),
                                 {},
                                 TablePlot{"ptxas_spill_store_bytes",
                                           false,
                                           "",
                                           {"cycles_per_iteration", "local_traffic"}}});
}

Table& SpillTable::table() {
  return result_.tables[index_];
}

void SpillTable::measure(StudyContext& context, StudyKernels& kernels, std::uint32_t iterations,
                         std::uint32_t launches, std::vector<std::string>& trace_rows) {
  const std::vector<SpillVariant>& variants = kernels.spill_variants();
  const double threads_on_device =
      static_cast<double>(config_.threads_per_block) * config_.blocks_per_sm * sm_count_;
  for (std::uint32_t index = 0; index < variants.size(); ++index) {
    context.check_interrupted();
    const SpillVariant& variant = variants[index];
    std::vector<Cell> cells = {number_cell(variant.register_limit), number_cell(variant.registers),
                               number_cell(variant.local_bytes),
                               optional_bytes(variant.ptxas_spill_store_bytes),
                               optional_bytes(variant.ptxas_spill_load_bytes)};
    const std::uint32_t fits = kernels.spill_max_blocks_per_sm(index, config_.threads_per_block);
    if (fits < config_.blocks_per_sm) {
      const std::string why = "this build fits " + std::to_string(fits) + " blocks per SM";
      while (cells.size() < table().columns.size()) cells.push_back(missing_cell(why));
      table().rows.push_back(std::move(cells));
      continue;
    }
    const SpillSpec spec{
        index,    config_.threads_per_block,      config_.blocks_per_sm, iterations,
        launches, config_.shared_carveout_percent};
    const SpillRun run = context.run_spill(spec);
    Row row{variant, timing_cell(run.cycles_per_iteration),
            timing_cell(scaled(run.ns_per_iteration, kSecondsPerNanosecond))};
    for (std::size_t i = 0; i < run.cycles_per_iteration.size(); ++i) {
      trace_rows.push_back(config_.id + "," + std::to_string(variant.register_limit) + "," +
                           std::to_string(variant.registers) + "," +
                           std::to_string(variant.local_bytes) + "," + std::to_string(i) + "," +
                           std::to_string(run.cycles_per_iteration[i]) + "," +
                           std::to_string(run.ns_per_iteration[i]));
    }
    cells.push_back(row.cycles);
    cells.push_back(row.seconds);
    cells.push_back(rows_.empty() ? number_cell(1)
                                  : number_cell(p50(row.cycles) / p50(rows_.front().cycles)));
    if (variant.ptxas_spill_store_bytes && variant.ptxas_spill_load_bytes) {
      const double bytes = *variant.ptxas_spill_store_bytes + *variant.ptxas_spill_load_bytes;
      cells.push_back(number_cell(bytes * threads_on_device / p50(row.seconds)));
    } else {
      cells.push_back(missing_cell("ptxas counts not captured for this device"));
    }
    table().rows.push_back(std::move(cells));
    rows_.push_back(std::move(row));
  }
}

void SpillTable::add_findings(double rising_tolerance) {
  if (rows_.size() < 2) return;
  std::vector<const Row*> by_local(rows_.size());
  std::transform(rows_.begin(), rows_.end(), by_local.begin(), [](const Row& row) { return &row; });
  std::stable_sort(by_local.begin(), by_local.end(), [](const Row* a, const Row* b) {
    return a->variant.local_bytes < b->variant.local_bytes;
  });
  std::vector<double> local_bytes;
  std::vector<double> nanoseconds;
  std::vector<double> cycles;
  for (const Row* row : by_local) {
    local_bytes.push_back(row->variant.local_bytes);
    nanoseconds.push_back(p50(row->seconds) * kNanosecondsPerSecond);
    cycles.push_back(p50(row->cycles));
  }
  const std::optional<LineFit> ns_fit = fit_line(local_bytes, nanoseconds);
  const std::optional<LineFit> cycle_fit = fit_line(local_bytes, cycles);
  const PairCount order = non_decreasing_pairs(cycles, rising_tolerance);
  const Row& unlimited = *by_local.front();
  const Row& tightest = *by_local.back();
  std::vector<const Cell*> quoted;
  for (const Row* row : by_local) quoted.push_back(&row->cycles);
  const std::string where = " (" + config_.title + ")";
  if (ns_fit && cycle_fit) {
    Finding finding;
    finding.table = table().id;
    finding.at = {{"threads_per_block", config_.threads_per_block},
                  {"blocks_per_sm", config_.blocks_per_sm}};
    finding.what = "each spilled 4-byte register adds " + fixed(ns_fit->slope * kWordBytes, 2) +
                   " ns (" + fixed(cycle_fit->slope * kWordBytes, 2) + " cycles) per iteration" +
                   where;
    finding.why =
        "a spilled word is stored to and loaded from local memory (through L1) on "
        "every update; a line through " +
        std::to_string(rows_.size()) + " builds, time against local bytes per thread";
    const Confidence confidence{
        share(std::clamp(cycle_fit->r_squared, 0.0, 1.0), "variance the line explains (R^2)"),
        agreement(order.in_order, order.pairs,
                  "steps to more local bytes where the time did not fall"),
        quoted_cells(quoted, "the builds' p50s")};
    finding.confidence = confidence.value();
    result_.findings.push_back(std::move(finding));
  }
  if (tightest.variant.local_bytes == 0) return;
  Finding finding;
  finding.table = table().id;
  finding.at = {{"register_limit", tightest.variant.register_limit}};
  finding.what =
      "the build limited to " + std::to_string(tightest.variant.register_limit) + " registers (" +
      std::to_string(tightest.variant.local_bytes) + " B local per thread, " +
      std::to_string(tightest.variant.local_bytes / kWordBytes) + " words) runs " +
      fixed(p50(tightest.cycles) / p50(unlimited.cycles), 2) + "x slower than the unlimited one (" +
      std::to_string(unlimited.variant.registers) + " registers, no spill)" + where;
  const std::uint64_t warps =
      std::uint64_t{config_.threads_per_block} / kWarpSize * config_.blocks_per_sm;
  finding.why =
      "spilled words live in local memory, cached in L1 while they fit: per SM, " +
      std::to_string(warps) + (warps == 1 ? " warp holds " : " warps hold ") +
      format_bytes(static_cast<double>(warps * kWarpSize * tightest.variant.local_bytes)) +
      " of them";
  const Confidence confidence{quoted_cells({&tightest.cycles, &unlimited.cycles}, "quoted p50s")};
  finding.confidence = confidence.value();
  result_.findings.push_back(std::move(finding));
}

void add_l1_finding(StudyResult& result, const std::string& with_default_l1,
                    const std::string& with_small_l1, int small_carveout_percent) {
  const Table* large = nullptr;
  const Table* small = nullptr;
  for (const Table& table : result.tables) {
    if (table.id == with_default_l1) large = &table;
    if (table.id == with_small_l1) small = &table;
  }
  if (large == nullptr || small == nullptr || large->rows.empty() ||
      large->rows.size() != small->rows.size()) {
    return;
  }
  const std::size_t slowdown = large->column("slowdown");
  const std::size_t cycles = large->column("cycles_per_iteration");
  const std::size_t local = large->column("local_bytes");
  const auto& large_row = large->rows.back();
  const auto& small_row = small->rows.back();
  if (!large_row[slowdown].value.is_number() || !small_row[slowdown].value.is_number()) return;
  const double before = large_row[slowdown].value.get<double>();
  const double after = small_row[slowdown].value.get<double>();
  Finding finding;
  finding.table = with_small_l1;
  finding.at = {{"register_limit", large_row[large->column("register_limit")].value},
                {"shared_carveout_percent", small_carveout_percent}};
  finding.what = "with L1 at its smallest (shared-memory carveout " +
                 std::to_string(small_carveout_percent) + " %) the tightest build's slowdown is " +
                 fixed(after, 2) + "x, against " + fixed(before, 2) + "x with the default L1";
  finding.why = "spilled words are cached in L1 (" +
                format_bytes(large_row[local].value.get<double>()) + " per thread here): " +
                (after > before ? "a smaller L1 holds fewer of them, so more spills go to L2"
                                : "the smaller L1 still holds what the loop touches, or the "
                                  "spills were not limited by L1 hits");
  const Confidence confidence{
      quoted_cells({&large_row[cycles], &small_row[cycles], &large->rows.front()[cycles],
                    &small->rows.front()[cycles]},
                   "quoted p50s")};
  finding.confidence = confidence.value();
  result.findings.push_back(std::move(finding));
}

}  // namespace memtopo::study
