#include "analysis/code_fetch_levels.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/changepoint.hpp"
#include "analysis/kstest.hpp"
#include "analysis/stats.hpp"

namespace memtopo {
namespace {

using Segment = SeriesSegment;

bool is_plateau(std::span<const std::uint64_t> bytes, Segment s) {
  const double first = static_cast<double>(bytes[s.begin]);
  const double last = static_cast<double>(bytes[s.end - 1]);
  return std::log2(last / first) >= kRampOctaves;
}

double level_of(std::span<const double> medians, Segment s) {
  return median(medians.subspan(s.begin, s.end - s.begin));
}

}  // namespace

CodeFetchLevels analyze_code_fetch(std::span<const std::uint64_t> code_bytes,
                                   std::span<const std::vector<double>> cycles_per_instruction) {
  if (code_bytes.empty() || code_bytes.size() != cycles_per_instruction.size()) {
    throw std::invalid_argument("code fetch levels: one sample per code size, at least one");
  }
  CodeFetchLevels out;
  for (const auto& samples : cycles_per_instruction) {
    if (samples.empty()) throw std::invalid_argument("code fetch levels: an empty sample");
    out.medians.push_back(median(samples));
  }
  ChangePointOptions options;
  options.min_noise = kCodeFetchNoiseFloor;
  out.noise_sigma = noise_sigma(out.medians, options);
  out.change_points = change_points(out.medians, options);

  const double clear = kCodeFetchClearSigmas * out.noise_sigma;
  std::vector<Segment> plateaus;
  for (const Segment& s : segments_between(out.change_points, out.medians.size())) {
    if (!is_plateau(code_bytes, s)) continue;
    // One level that a change point cut within the noise is one plateau: on an H200 the L2's
    // code plateau read 5.68 just past the ramp and 5.64 further on, and the level behind the
    // L1.5 taken from its first part alone moved the miss penalty by 0.04 between runs.
    if (!plateaus.empty() &&
        std::fabs(level_of(out.medians, s) - level_of(out.medians, plateaus.back())) <
            kSameLevelContrast * clear) {
      plateaus.back().end = s.end;
    } else {
      plateaus.push_back(s);
    }
  }
  for (std::size_t k = 0; k + 1 < plateaus.size(); ++k) {
    const Segment faster = plateaus[k];
    const Segment slower = plateaus[k + 1];
    CodeFetchTransition t;
    t.cpi_before = level_of(out.medians, faster);
    t.cpi_after = level_of(out.medians, slower);
    if (t.cpi_after <= t.cpi_before) continue;
    t.size_bytes = code_bytes[faster.end - 1];
    t.first_slower_bytes = code_bytes[faster.end];
    t.ramp_end_bytes = code_bytes[slower.begin];
    t.ramp_sizes = slower.begin - faster.end;
    const KsResult ks =
        ks_two_sample(cycles_per_instruction[faster.end - 1], cycles_per_instruction[slower.begin]);
    t.ks_statistic = ks.statistic;
    t.significance = change_confidence(ks);
    t.contrast = clear > 0 ? std::clamp((t.cpi_after - t.cpi_before) / clear, 0.0, 1.0) : 1.0;
    t.confidence = t.significance * t.contrast;
    t.plateau_first = faster.begin;
    t.plateau_last = faster.end - 1;
    t.slower_first = slower.begin;
    t.slower_last = slower.end - 1;
    out.transitions.push_back(t);
  }
  return out;
}

PlateauFlatness plateau_flatness(const CodeFetchLevels& levels, const CodeFetchTransition& t) {
  PlateauFlatness out;
  out.level = t.cpi_before;
  out.band = kSameLevelContrast * kCodeFetchClearSigmas * levels.noise_sigma;
  const auto first = levels.medians.begin() + static_cast<std::ptrdiff_t>(t.plateau_first);
  const auto last = levels.medians.begin() + static_cast<std::ptrdiff_t>(t.plateau_last) + 1;
  const auto [lowest, highest] = std::minmax_element(first, last);
  out.lowest = *lowest;
  out.highest = *highest;
  out.flat = out.highest - out.level <= out.band && out.level - out.lowest <= out.band;
  return out;
}

const CodeFetchTransition* repeated_step(const CodeFetchTransition& step,
                                         const CodeFetchLevels& repetition,
                                         double min_confidence) {
  const CodeFetchTransition* nearest = nullptr;
  double nearest_octaves = kRampOctaves;
  for (const CodeFetchTransition& t : repetition.transitions) {
    if (t.confidence < min_confidence || t.cpi_after <= t.cpi_before) continue;
    const double octaves = std::fabs(
        std::log2(static_cast<double>(t.size_bytes) / static_cast<double>(step.size_bytes)));
    if (octaves <= nearest_octaves) {
      nearest = &t;
      nearest_octaves = octaves;
    }
  }
  return nearest;
}

LevelVerdict judge_level(const CodeFetchLevels& pooled, const CodeFetchTransition& step,
                         std::span<const CodeFetchLevels> repetitions, double min_confidence) {
  LevelVerdict verdict;
  verdict.flatness = plateau_flatness(pooled, step);
  for (const CodeFetchLevels& repetition : repetitions) {
    verdict.repeats.push_back(repeated_step(step, repetition, min_confidence));
    if (verdict.repeats.back()) ++verdict.repeated;
  }
  verdict.conclusive = verdict.flatness.flat && repetitions.size() >= 2 &&
                       verdict.repeated == repetitions.size();
  return verdict;
}

}  // namespace memtopo
