#include "probes/core/chase_helpers.hpp"

#include <bit>
#include <cstdio>

#include "analysis/stats.hpp"
#include "backend/chain.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

std::vector<double> raw_cycles(const Trace& trace) {
  return std::vector<double>(trace.cycles.begin(), trace.cycles.end());
}

std::vector<double> corrected_cycles(const Trace& trace) {
  std::vector<double> out;
  out.reserve(trace.cycles.size());
  for (auto c : trace.cycles) out.push_back(static_cast<double>(c) - trace.overhead_cycles);
  return out;
}

std::uint64_t loads_of(const ChaseSpec& spec) {
  return loads_per_chaser(spec) * spec.chasers;
}

std::uint64_t round_down(std::uint64_t value, std::uint64_t step) {
  return value / step * step;
}

std::uint64_t floor_power_of_two(std::uint64_t value) {
  return std::bit_floor(value);
}

nlohmann::json spread_evidence(const Spread& s) {
  return {{"p50", s.p50}, {"mean", s.mean}, {"stdev", s.stdev}, {"p5", s.p5},
          {"p95", s.p95}, {"min", s.min},   {"max", s.max},     {"samples", s.samples}};
}

void require_clearly_faster(const Spread& hit, const Spread& next_level, LoadPath path,
                            LoadPath next_level_path, const std::string& not_cached_reason) {
  if (clearly_faster(hit, next_level)) return;
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, ": p50 %.1f cycles via %s vs %.1f via %s", hit.p50,
                std::string(to_string(path)).c_str(), next_level.p50,
                std::string(to_string(next_level_path)).c_str());
  throw ProbeSkipped(not_cached_reason + numbers);
}

nlohmann::json verdict_evidence(const FitVerdict& v, std::uint64_t footprint_bytes) {
  nlohmann::json j = {{"fits", v.fits},
                      {"missing", v.missing},
                      {"elements", v.elements},
                      {"passes", v.min_passes},
                      {"slow_accesses", v.slow_accesses},
                      {"miss_fraction", v.miss_fraction},
                      {"limit", v.limit}};
  if (footprint_bytes != 0) j["footprint_bytes"] = footprint_bytes;
  return j;
}

LevelBaselines judge_baselines(const Trace& hit, const Trace& next_level, LoadPath path,
                               LoadPath next_level_path, const std::string& not_cached_reason) {
  LevelBaselines b;
  b.hit = summarize(corrected_cycles(hit));
  b.next_level = summarize(corrected_cycles(next_level));
  require_clearly_faster(b.hit, b.next_level, path, next_level_path, not_cached_reason);
  // The next level's p5, not its p50: an L2 with near and far partitions answers at two
  // latencies, and the threshold must stay below the near one.
  b.rule = fit_rule_for({.hit_cycles = b.hit.p50, .next_level_cycles = b.next_level.p5});
  return b;
}

nlohmann::json gap_evidence(const GapEstimate& gaps, double threshold_cycles) {
  nlohmann::json histogram = nlohmann::json::object();
  for (const auto& [gap, count] : gaps.histogram) histogram[std::to_string(gap)] = count;
  return {{"threshold_cycles", threshold_cycles},
          {"slow_accesses", gaps.slow_accesses},
          {"gaps", gaps.gaps},
          {"mode_gap_bytes", gaps.mode_gap_bytes},
          {"median_gap_bytes", gaps.median_gap_bytes},
          {"consistency", gaps.consistency},
          {"gap_histogram_bytes", std::move(histogram)}};
}

void set_granularity(Property& property, const GapEstimate& gaps, std::span<const double> cycles) {
  if (gaps.granularity_bytes) {
    property.value = *gaps.granularity_bytes;
    set_confidence(property, gap_confidence(gaps));
    property.spread = summarize(cycles);
  } else {
    property.value = nullptr;
    property.inconclusive = true;
    property.note = gaps.note;
  }
}

std::optional<DeviceWideThreshold> device_wide_threshold(const nlohmann::json& size_evidence) {
  const auto number = [&](const char* key) -> std::optional<double> {
    if (!size_evidence.contains(key) || !size_evidence.at(key).is_number()) return std::nullopt;
    return size_evidence.at(key).get<double>();
  };
  const auto midpoint = number("threshold_cycles");
  if (!midpoint) return std::nullopt;
  const auto floor = number("miss_floor_cycles");
  if (floor && *floor > *midpoint) return DeviceWideThreshold{*floor, "miss floor"};
  return DeviceWideThreshold{*midpoint, "midpoint"};
}

std::optional<std::uint64_t> staircase_stride_bytes(const nlohmann::json& size_evidence) {
  if (!size_evidence.contains("staircase")) return std::nullopt;
  const auto& staircase = size_evidence.at("staircase");
  if (!staircase.contains("stride_bytes") || !staircase.at("stride_bytes").is_number_unsigned())
    return std::nullopt;
  return staircase.at("stride_bytes").get<std::uint64_t>();
}

}  // namespace memtopo
