#include "probes/hopper/icache_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analysis/code_fetch_levels.hpp"
#include "model/partition_rows.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/findings.hpp"
#include "probes/hopper/hopper_probe.hpp"
#include "probes/hopper/icache_levels.hpp"

namespace memtopo {
namespace {

constexpr std::uint64_t kSmallestCodeBytes = 2048;
constexpr double kStepsPerOctave = 4;
// Instructions timed per code size: enough that the clock reads do not matter.
constexpr double kTimedInstructions = 65536;
constexpr std::uint32_t kMinTimedIterations = 8;
constexpr std::uint32_t kMaxTimedIterations = 256;
// Points added between the last size before and the first after every transition of the coarse
// sweep (its ramp included).
constexpr std::uint64_t kRefinePoints = 8;
// A level's step must show in at least this many repetitions (SM x code layout); with fewer
// sites and layouts, the first one runs again.
constexpr std::size_t kMinRepetitions = 2;

std::vector<std::uint64_t> coarse_sizes(const CodeFetchLayout& layout) {
  std::set<std::uint64_t> sizes;
  for (double bytes = kSmallestCodeBytes; bytes <= layout.max_code_bytes;
       bytes *= std::exp2(1.0 / kStepsPerOctave)) {
    sizes.insert(round_down(static_cast<std::uint64_t>(bytes), layout.block_bytes));
  }
  sizes.insert(layout.max_code_bytes);
  return {sizes.begin(), sizes.end()};
}

// The first SM of every partition of a conclusive l2.partition_map (a guess at what moved the
// value: code fetched from L2 is near to some SMs and far from others); without one, one
// block wherever it is scheduled. At 113d560 an H200's icache_l15.miss_penalty read 3.41 in
// three processes and 3.44 in two, each with a p5-p95 of 0.035 (that run's files were not
// kept: docs/results/README.md); at eadb774 the two SMs' penalties differed by up to 0.012
// and five processes agreed within spread (docs/results/nvidia-h200/2026-11-25_eadb774).
std::vector<std::optional<std::uint32_t>> code_fetch_sms(const Topology& topology,
                                                         const BackendLimits& limits) {
  std::vector<std::optional<std::uint32_t>> sms;
  const Property* map = any_finding(topology, "l2", "partition_map");
  if (map && map->source == Source::measured && !map->inconclusive) {
    const std::set<std::uint32_t> known(limits.sm_ids.begin(), limits.sm_ids.end());
    for (const PartitionRow& row : partition_rows(*map)) {
      if (!row.sms.empty() && (known.empty() || known.contains(row.sms.front()))) {
        sms.push_back(row.sms.front());
      }
    }
  }
  if (sms.size() < 2) sms = {std::nullopt};
  return sms;
}

// Every SM in every code layout the backend has: each is a repetition of the whole series,
// analysed on its own, in which a level's step must show again. At least kMinRepetitions.
std::vector<CodeFetchRepetition> code_fetch_repetitions(const Topology& topology,
                                                        const BackendLimits& limits,
                                                        const CodeFetchLayout& layout) {
  std::vector<CodeFetchRepetition> repetitions;
  for (std::uint32_t l = 0; l < std::max<std::uint32_t>(layout.layouts, 1); ++l) {
    for (const auto& sm : code_fetch_sms(topology, limits)) {
      repetitions.push_back(CodeFetchRepetition{sm, l, {}, {}});
    }
  }
  while (repetitions.size() < kMinRepetitions) {
    repetitions.push_back(CodeFetchRepetition{repetitions.front().sm_id,
                                              repetitions.front().layout, {}, {}});
  }
  return repetitions;
}

class IcacheProbe final : public HopperProbe {
 public:
  std::string id() const override { return "icache_l0.size"; }
  std::string description() const override {
    return "instruction caches: sizes and cycles per instruction from code of growing size";
  }
  std::vector<std::string> also_writes() const override { return {"icache_l1", "icache_l15"}; }

  void run(ProbeContext& ctx) override {
    HopperExperiments& hx = require_experiments(ctx, "instruction caches");
    const CodeFetchLayout layout = hx.code_fetch_layout();
    repetitions_ = code_fetch_repetitions(ctx.topology, ctx.backend.limits(), layout);
    std::vector<std::uint64_t> sizes = coarse_sizes(layout);
    std::vector<std::vector<double>> samples;
    for (const std::uint64_t bytes : sizes) samples.push_back(measure(ctx, hx, layout, bytes));
    const CodeFetchLevels coarse = analyze_code_fetch(sizes, samples);

    // Refine: more sizes inside every transition (its ramp included), then the analysis again.
    std::set<std::uint64_t> added;
    for (const CodeFetchTransition& t : coarse.transitions) {
      const std::uint64_t gap = t.ramp_end_bytes - t.size_bytes;
      const std::uint64_t stride = std::max<std::uint64_t>(
          layout.block_bytes, round_down(gap / (kRefinePoints + 1), layout.block_bytes));
      for (std::uint64_t b = t.size_bytes + stride; b < t.ramp_end_bytes; b += stride)
        added.insert(b);
    }
    for (const std::uint64_t bytes : added) {
      const auto at = std::lower_bound(sizes.begin(), sizes.end(), bytes);
      if (at != sizes.end() && *at == bytes) continue;
      const auto index = at - sizes.begin();
      samples.insert(samples.begin() + index, measure(ctx, hx, layout, bytes));
      for (CodeFetchRepetition& r : repetitions_) {  // measure() appended this size's at the end
        std::vector<double> latest = std::move(r.samples.back());
        r.samples.pop_back();
        r.samples.insert(r.samples.begin() + index, std::move(latest));
      }
      sizes.insert(sizes.begin() + index, bytes);
    }
    const CodeFetchLevels levels = added.empty() ? coarse : analyze_code_fetch(sizes, samples);
    write_icache_levels(ctx.topology, CodeFetchSeries{sizes, samples, levels}, repetitions_,
                        layout);
  }

 private:
  // Every repetition's samples at `bytes`, pooled (each one's also kept in its repetition).
  std::vector<double> measure(ProbeContext& ctx, HopperExperiments& hx,
                              const CodeFetchLayout& layout, std::uint64_t bytes) {
    ctx.check_interrupted();
    CodeFetchSpec spec;
    spec.code_bytes = static_cast<std::uint32_t>(bytes);
    const double instructions =
        static_cast<double>(bytes / layout.block_bytes) * layout.instructions_per_block;
    spec.timed_iterations =
        std::clamp(static_cast<std::uint32_t>(std::ceil(kTimedInstructions / instructions)),
                   kMinTimedIterations, kMaxTimedIterations);
    std::vector<double> pooled;
    for (CodeFetchRepetition& r : repetitions_) {
      spec.sm_id = r.sm_id;
      spec.layout = r.layout;
      CodeFetchResult result = hx.run_code_fetch(spec);
      r.ran_on.insert(result.sm_id);
      pooled.insert(pooled.end(), result.cycles_per_instruction.begin(),
                    result.cycles_per_instruction.end());
      r.samples.push_back(std::move(result.cycles_per_instruction));
    }
    return pooled;
  }

  std::vector<CodeFetchRepetition> repetitions_;
};

}  // namespace

std::unique_ptr<Probe> make_icache_probe() {
  return std::make_unique<IcacheProbe>();
}

}  // namespace memtopo
