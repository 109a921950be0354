// The spilling study (issue 13, study 4; study 001, 3.4.4): one kernel whose threads keep
// kSpillLiveWords words live, built under register limits from 255 (no spill) down to 32
// (hundreds of spilled bytes per thread). Time per iteration against the spilled bytes, with
// one warp per SM (the latency a spill adds), with several warps per SM (spills of many
// warps competing for L1 and the load/store pipes) and the same with L1 at its smallest (how
// much of the spill traffic L1 absorbs); ptxas' spill counts beside each row.
#include <string>
#include <vector>

#include "study/kernel_study.hpp"
#include "study/spilling/spilling_rows.hpp"
#include "study/studies.hpp"

namespace memtopo::study {
namespace {

constexpr std::uint32_t kIterations = 2048;
constexpr std::uint32_t kLaunches = 5;
// Several warps per SM: 512 threads fit every build (even 82 registers x 512 < 64 Ki).
constexpr std::uint32_t kBusyThreadsPerBlock = 256;
constexpr std::uint32_t kBusyBlocksPerSm = 2;
// Less time with more local bytes: a step may be this much faster and still count as rising.
constexpr double kRisingTolerance = 0.05;

// The carveout that leaves L1 the least room (all the storage it can to shared memory).
constexpr int kSmallestL1Carveout = 100;

std::vector<SpillConfig> configurations() {
  return {{"one_warp", "one warp per SM", 32, 1, SpillSpec::kDefaultCarveout},
          {"512_threads", "2 blocks of 256 threads per SM", kBusyThreadsPerBlock, kBusyBlocksPerSm,
           SpillSpec::kDefaultCarveout},
          {"512_threads_small_l1",
           "2 blocks of 256 threads per SM, L1 at its smallest (shared-memory carveout 100 %)",
           kBusyThreadsPerBlock, kBusyBlocksPerSm, kSmallestL1Carveout}};
}

nlohmann::json variants_json(const std::vector<SpillVariant>& variants) {
  nlohmann::json list = nlohmann::json::array();
  for (const SpillVariant& variant : variants) list.push_back(variant.register_limit);
  return list;
}

void run_spilling(StudyContext& context, StudyResult& result) {
  StudyKernels& kernels = context.study_kernels("registers or local memory");
  const std::vector<SpillVariant>& variants = kernels.spill_variants();
  result.parameters = {{"live_words_per_thread", kSpillLiveWords},
                       {"register_limits", variants_json(variants)},
                       {"iterations", kIterations},
                       {"timed_launches", kLaunches},
                       {"ptxas_counts", kernels.ptxas_counts_source()}};
  result.notes.push_back(
      "spill counts: registers and local bytes are the loaded module's "
      "(cudaFuncGetAttributes); ptxas' spill store/load bytes come from " +
      kernels.ptxas_counts_source());
  std::vector<std::string> trace_rows;
  for (const SpillConfig& config : configurations()) {
    context.phase(config.id, [&] {
      context.progress("spilling: " + config.title);
      SpillTable table(result, config, context.backend.facts().sm_count);
      table.measure(context, kernels, kIterations, kLaunches, trace_rows);
      table.add_findings(kRisingTolerance);
    });
  }
  add_l1_finding(result, "spilling_512_threads", "spilling_512_threads_small_l1",
                 kSmallestL1Carveout);
  if (context.traces) context.traces->record_table(result.id + "_samples", kSpillTraceHeader, trace_rows);
}

}  // namespace

Study spilling_study() {
  return Study{
      .id = "spilling",
      .title = "time per iteration against spilled registers: one kernel under register limits",
      .needs = "a CUDA GPU (the simulated device does not model registers or local memory)",
      .run = run_spilling,
  };
}

}  // namespace memtopo::study
