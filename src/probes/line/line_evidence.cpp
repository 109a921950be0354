#include "probes/line/line_evidence.hpp"

#include <cstdio>

#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/line/line_constants.hpp"

namespace memtopo {
namespace {

nlohmann::json nullable(const std::optional<std::uint64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json prime_strides_evidence(const LinePlan& plan,
                                      const std::vector<CapacitySearch>& searches,
                                      const LineInference& inference) {
  nlohmann::json out = nlohmann::json::array();
  const StrideLadder& ladder = plan.prime;
  for (std::size_t i = 0; i < ladder.strides.size(); ++i) {
    const std::uint64_t stride = ladder.strides[i].stride_bytes;
    const StrideVerdict* v = nullptr;
    for (const auto& candidate : inference.strides) {
      if (candidate.stride_bytes == stride) v = &candidate;
    }
    nlohmann::json entry = {{"stride_bytes", stride},
                            {"unit_bytes", stride / plan.prime_number},
                            {"probe_footprint_bytes", ladder.strides[i].probe_footprint_bytes},
                            {"probe", verdict_evidence(ladder.verdicts[i])},
                            {"class", v ? to_string(v->cls) : "?"}};
    if (const CapacitySearch* s = search_of(searches, false, i)) {
      entry["search"] = search_evidence(*s);
    }
    if (v && v->capacity_elements) entry["capacity_elements"] = *v->capacity_elements;
    if (v && v->line_estimate_bytes) entry["size_over_capacity_bytes"] = *v->line_estimate_bytes;
    out.push_back(std::move(entry));
  }
  return out;
}

namespace {

nlohmann::json power_of_two_evidence(const LinePaths& paths) {
  nlohmann::json strides = nlohmann::json::array();
  const StrideLadder& ladder = paths.plan.power_of_two;
  for (std::size_t i = 0; i < ladder.strides.size(); ++i) {
    nlohmann::json entry = {{"stride_bytes", ladder.strides[i].stride_bytes},
                            {"probe_footprint_bytes", ladder.strides[i].probe_footprint_bytes},
                            {"probe", verdict_evidence(ladder.verdicts[i])}};
    if (const CapacitySearch* s = search_of(paths.searches, true, i)) {
      entry["search"] = search_evidence(*s);
    }
    strides.push_back(std::move(entry));
  }
  const PowerOfTwoLine& pow2 = paths.power_of_two;
  return {
      {"probe_footprint_bytes", ladder.probe_target_bytes},
      {"strides", std::move(strides)},
      {"line_bytes", nullable(pow2.line_bytes)},
      {"first_beyond_stride_bytes", pow2.first_beyond_stride},
      {"raw_ratio_bytes", pow2.raw_ratio},
      {"confidence", paths.power_of_two_confidence ? nlohmann::json(*paths.power_of_two_confidence)
                                                   : nlohmann::json(nullptr)},
      {"note", pow2.note}};
}

}  // namespace

std::string line_method(const LineMeasurement& m, const LinePlan& plan) {
  char method[1000];
  std::snprintf(
      method, sizeof method,
      "capacity in elements per stride (fine-grained pointer chase via %s, sequential, 1 warm + "
      "%u timed passes, fit rule of the size probe): strides = %llu x unit (then %llu, %llu x unit "
      "while no stride holds the prime times the size), units = %s%llu B x 2^k; each classified at "
      "3/4 of %llu x the measured size %s, the capacity of the first two "
      "that fit there found by concurrent size searches (doubling, section, scan); line = size / "
      "capacity in elements at the smallest stride holding %llu x the size, to a power of two; "
      "second path for hashed set indices: power-of-two strides classified at 3/2 of the size, "
      "line = size / capacity in elements at the first that holds it",
      std::string(to_string(m.target().path)).c_str(), kTimedPasses,
      static_cast<unsigned long long>(kLinePrime), static_cast<unsigned long long>(kLinePrimes[1]),
      static_cast<unsigned long long>(kLinePrimes[2]),
      plan.sector_bytes ? "measured sector " : "assumed ",
      static_cast<unsigned long long>(plan.unit_bytes), static_cast<unsigned long long>(kLinePrime),
      format_bytes(plan.size_bytes).c_str(), static_cast<unsigned long long>(kLinePrime));
  return method;
}

nlohmann::json line_evidence(const LineMeasurement& m, const LinePaths& paths) {
  const LinePlan& plan = paths.plan;
  nlohmann::json evidence = {
      {"size_bytes", plan.size_bytes},
      {"sector_bytes", nullable(plan.sector_bytes)},
      {"unit_bytes", plan.unit_bytes},
      {"prime", plan.prime_number},
      {"threshold_cycles", m.rule().threshold_cycles},
      {"first_beyond_stride_bytes", paths.prime.first_beyond_stride},
      {"raw_ratio_bytes", paths.prime.raw_ratio},
      {"sectored", paths.prime.sectored},
      {"capacity_per_stride", prime_strides_evidence(plan, paths.searches, paths.prime)},
      {"power_of_two_path", power_of_two_evidence(paths)},
      {"cost", m.cost_evidence()}};
  evidence.update(m.baseline_evidence());
  return evidence;
}

}  // namespace memtopo
