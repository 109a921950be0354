#include "probes/hopper/icache_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/code_fetch_levels.hpp"
#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "model/partition_rows.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/hopper/hopper_probe.hpp"

namespace memtopo {
namespace {

// The levels, numbered from the core outwards by the order their steps appear.
constexpr const char* kLevels[] = {"icache_l0", "icache_l1", "icache_l15"};
constexpr std::uint64_t kSmallestCodeBytes = 2048;
constexpr double kStepsPerOctave = 4;
// Instructions timed per code size: enough that the clock reads do not matter.
constexpr double kTimedInstructions = 65536;
constexpr std::uint32_t kMinTimedIterations = 8;
constexpr std::uint32_t kMaxTimedIterations = 256;
// Points added between the last size before and the first after every transition of the coarse
// sweep (its ramp included).
constexpr std::uint64_t kRefinePoints = 8;
// A transition below this confidence is noise, not a cache level (a decision threshold).
constexpr double kMinStepConfidence = 0.5;

const char* kMethod =
    "instruction fetch: one warp runs the first n KiB of a 512 KiB straight-line kernel body "
    "(blocks of 62 independent FFMAs on 8 accumulators plus a compare and branch: 64 SASS "
    "instructions, 1 KiB) in a loop, 2 warm iterations then >= 8 timed (%clock64 per "
    "iteration), cycles per instruction per iteration, at the first SM of each partition of "
    "l2.partition_map (pinned by %smid; without a map, wherever the block runs), pooled; n at "
    "4 steps per octave from 2 KiB, then 8 more points inside every transition; change points "
    "(PELT, a noise floor of 0.01 "
    "cycles per instruction) cut the series, segments of at least 1/4 octave are levels and "
    "shorter ones a ramp between two; a level's size is the largest code that still ran at its "
    "speed (the ramp's onset), its confidence the KS significance across the transition times "
    "its contrast against 10 noise sigmas";

std::vector<std::uint64_t> coarse_sizes(const CodeFetchLayout& layout) {
  std::set<std::uint64_t> sizes;
  for (double bytes = kSmallestCodeBytes; bytes <= layout.max_code_bytes;
       bytes *= std::exp2(1.0 / kStepsPerOctave)) {
    sizes.insert(round_down(static_cast<std::uint64_t>(bytes), layout.block_bytes));
  }
  sizes.insert(layout.max_code_bytes);
  return {sizes.begin(), sizes.end()};
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
    sites_ = code_fetch_sites(ctx.topology, ctx.backend.limits());
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
      for (Site& site : sites_) {  // measure() appended this size's samples at the end
        std::vector<double> latest = std::move(site.samples.back());
        site.samples.pop_back();
        site.samples.insert(site.samples.begin() + index, std::move(latest));
      }
      sizes.insert(sizes.begin() + index, bytes);
    }
    const CodeFetchLevels levels = added.empty() ? coarse : analyze_code_fetch(sizes, samples);
    write_levels(ctx.topology, sizes, levels, samples, layout);
  }

 private:
  // Where the code runs, and what it measured there (per code size, in the order of `sizes`).
  struct Site {
    std::optional<std::uint32_t> sm_id;  // pinned (%smid), or wherever the block is scheduled
    std::set<std::uint32_t> ran_on;
    std::vector<std::vector<double>> samples;
  };

  // The first SM of every partition of a conclusive l2.partition_map (a guess at what moved the
  // value: code fetched from L2 is near to some SMs and far from others); without one, one
  // block wherever it is scheduled. At 113d560 an H200's icache_l15.miss_penalty read 3.41 in
  // three processes and 3.44 in two, each with a p5-p95 of 0.035 (that run's files were not
  // kept: docs/results/README.md); at eadb774 the two SMs' penalties differed by up to 0.012
  // and five processes agreed within spread (docs/results/nvidia-h200/2026-11-25_eadb774).
  static std::vector<Site> code_fetch_sites(const Topology& topology, const BackendLimits& limits) {
    std::vector<Site> sites;
    const Property* map = any_finding(topology, "l2", "partition_map");
    if (map && map->source == Source::measured && !map->inconclusive) {
      const std::set<std::uint32_t> known(limits.sm_ids.begin(), limits.sm_ids.end());
      for (const PartitionRow& row : partition_rows(*map)) {
        if (!row.sms.empty() && (known.empty() || known.contains(row.sms.front()))) {
          sites.push_back(Site{row.sms.front(), {}, {}});
        }
      }
    }
    if (sites.size() < 2) sites = {Site{}};
    return sites;
  }

  // Every site's samples at `bytes`, pooled (each site's also kept in its Site).
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
    for (Site& site : sites_) {
      spec.sm_id = site.sm_id;
      CodeFetchResult result = hx.run_code_fetch(spec);
      site.ran_on.insert(result.sm_id);
      pooled.insert(pooled.end(), result.cycles_per_instruction.begin(),
                    result.cycles_per_instruction.end());
      site.samples.push_back(std::move(result.cycles_per_instruction));
    }
    return pooled;
  }

  nlohmann::json sites_evidence() const {
    nlohmann::json out = nlohmann::json::array();
    for (const Site& site : sites_) {
      out.push_back({{"pinned_sm", site.sm_id ? nlohmann::json(*site.sm_id) : nlohmann::json()},
                     {"ran_on_sms", site.ran_on}});
    }
    return out;
  }

  // Each site's cycles per instruction on the two plateaus of `t` (median of its samples) and
  // their difference: how much of the transition depends on the SM.
  nlohmann::json by_site(const CodeFetchTransition& t) const {
    nlohmann::json out = nlohmann::json::array();
    for (const Site& site : sites_) {
      const double before = median(plateau_samples(site.samples, t.plateau_first, t.plateau_last));
      const double after = median(plateau_samples(site.samples, t.slower_first, t.slower_last));
      out.push_back({{"sms", site.ran_on},
                     {"cycles_per_instruction_before", before},
                     {"cycles_per_instruction_after", after},
                     {"miss_penalty", after - before}});
    }
    return out;
  }

  static nlohmann::json series_evidence(const std::vector<std::uint64_t>& sizes,
                                        const CodeFetchLevels& levels) {
    nlohmann::json series = nlohmann::json::array();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      series.push_back({{"code_bytes", sizes[i]}, {"cycles_per_instruction", levels.medians[i]}});
    }
    return series;
  }

  std::vector<Site> sites_;

  // Every sample of the code sizes first..last, pooled.
  static std::vector<double> plateau_samples(const std::vector<std::vector<double>>& samples,
                                             std::size_t first, std::size_t last) {
    std::vector<double> pooled;
    for (std::size_t i = first; i <= last; ++i)
      pooled.insert(pooled.end(), samples[i].begin(), samples[i].end());
    return pooled;
  }

  void write_levels(Topology& topology, const std::vector<std::uint64_t>& sizes,
                    const CodeFetchLevels& levels, const std::vector<std::vector<double>>& samples,
                    const CodeFetchLayout& layout) {
    const nlohmann::json series = series_evidence(sizes, levels);
    std::vector<const CodeFetchTransition*> accepted;
    for (const CodeFetchTransition& t : levels.transitions) {
      if (t.confidence >= kMinStepConfidence) accepted.push_back(&t);
    }
    if (accepted.empty()) {
      Property p;
      p.name = "size";
      p.unit = "bytes";
      p.source = Source::measured;
      p.method = kMethod;
      p.value = layout.max_code_bytes;
      p.inconclusive = true;
      p.bound = Bound::lower;
      p.note = "no transition in cycles per instruction up to the largest code the kernel has";
      p.evidence = {{"series", series},
                    {"sites", sites_evidence()},
                    {"transitions_found", levels.transitions.size()},
                    {"noise_sigma", levels.noise_sigma}};
      element_for(topology, kLevels[0]).set(std::move(p));
      return;
    }
    for (std::size_t level = 0; level < accepted.size() && level < std::size(kLevels); ++level) {
      const CodeFetchTransition& t = *accepted[level];
      Element& element = element_for(topology, kLevels[level]);
      Property size;
      size.name = "size";
      size.unit = "bytes";
      size.source = Source::measured;
      size.method = kMethod;
      size.value = t.size_bytes;
      size.evidence = {{"first_slower_bytes", t.first_slower_bytes},
                       {"ramp_end_bytes", t.ramp_end_bytes},
                       {"ramp_sizes", t.ramp_sizes},
                       {"cycles_per_instruction_before", t.cpi_before},
                       {"cycles_per_instruction_after", t.cpi_after},
                       {"ks_statistic", t.ks_statistic},
                       {"significance", t.significance},
                       {"contrast", t.contrast},
                       {"noise_sigma", levels.noise_sigma},
                       {"sites", sites_evidence()},
                       {"series", series}};
      set_confidence(size,
                     Confidence{edge(t.confidence, "the transition (significance x contrast)")});
      element.set(std::move(size));

      // What the level answers at (cycles per instruction while the code fits it), and what a
      // miss in it costs per instruction (the transition's height).
      const std::vector<double> pooled = plateau_samples(samples, t.plateau_first, t.plateau_last);
      element.set(measured_property("cycles_per_instruction", "cycles", kMethod, pooled));
      Property penalty;
      penalty.name = "miss_penalty";
      penalty.unit = "cycles";
      penalty.source = Source::derived;
      penalty.method =
          "cycles per instruction of the level behind minus this level's, across the "
          "transition (per instruction executed, not per fetch); spread over every sample "
          "behind minus every one in front (the medians alone agreed closer within a run than "
          "between runs)";
      penalty.value = t.cpi_after - t.cpi_before;
      penalty.spread = summarize(
          pairwise_differences(plateau_samples(samples, t.slower_first, t.slower_last), pooled));
      penalty.evidence["by_sm"] = by_site(t);
      set_confidence(penalty, Confidence{edge(t.confidence, "the transition")});
      element.set(std::move(penalty));
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_icache_probe() {
  return std::make_unique<IcacheProbe>();
}

}  // namespace memtopo
