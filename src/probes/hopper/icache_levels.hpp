#pragma once
// What the instruction-cache probe writes (icache_l0, icache_l1, icache_l15: size,
// cycles_per_instruction, miss_penalty) from its series: every step of the pooled series above
// kMinStepConfidence is a level, numbered from the core outwards, and a level is conclusive only
// when its plateau is flat and its step shows again in every repetition (analysis/
// code_fetch_levels.hpp, judge_level); otherwise its values stay, inconclusive, with the
// evidence that failed.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "analysis/code_fetch_levels.hpp"
#include "backend/hopper_experiments.hpp"
#include "model/topology.hpp"

namespace memtopo {

// A step below this confidence is noise, not a cache level (a decision threshold).
inline constexpr double kMinStepConfidence = 0.5;

// One series of the sweep: one SM (pinned by %smid, or wherever the block ran) and one code
// layout (CodeFetchSpec::layout), measured at every code size.
struct CodeFetchRepetition {
  std::optional<std::uint32_t> sm_id;
  std::uint32_t layout = 0;
  std::set<std::uint32_t> ran_on;
  std::vector<std::vector<double>> samples;  // per code size, in the order of the sizes
};

// The pooled series and its analysis.
struct CodeFetchSeries {
  const std::vector<std::uint64_t>& sizes;
  const std::vector<std::vector<double>>& samples;  // every repetition's, per size
  const CodeFetchLevels& levels;
};

// Writes the levels (or, without any step, icache_l0.size as an inconclusive lower bound of the
// largest code) into `topology`.
void write_icache_levels(Topology& topology, const CodeFetchSeries& series,
                         const std::vector<CodeFetchRepetition>& repetitions,
                         const CodeFetchLayout& layout);

}  // namespace memtopo
