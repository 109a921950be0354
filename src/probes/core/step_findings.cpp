#include "probes/core/step_findings.hpp"

#include "model/units.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/findings.hpp"

namespace memtopo::staircase {

nlohmann::json staircase_evidence(const Staircase& s, const Sweep& sweep) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : s.levels) {
    levels.push_back({{"from_bytes", l.from_bytes},
                      {"to_bytes", l.to_bytes},
                      {"latency_cycles", l.latency},
                      {"mean_cycles", l.mean},
                      {"reduced_cycles", l.reduced},
                      {"spread", spread_evidence(l.spread)}});
  }
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& st : s.steps) {
    steps.push_back({{"between_bytes", {st.before_bytes, st.after_bytes}},
                     {"latency_before", st.latency_before},
                     {"latency_after", st.latency_after},
                     {"jump_cycles", st.jump},
                     {"ks",
                      {{"D", st.ks.statistic},
                       {"critical_value", st.ks.critical_value},
                       {"p_value", st.ks.p_value},
                       {"different", st.ks.different}}},
                     {"significance", st.significance},
                     {"contrast", st.contrast},
                     {"sharpness", st.sharpness},
                     {"confidence", st.confidence}});
  }
  return {
      {"footprints", s.footprints},
      {"reduction", to_string(s.used)},
      {"series", {{"geometric", s.geometric}, {"mean", s.mean}, {"rms_from_min", s.rms_from_min}}},
      {"noise_sigma", s.noise_sigma},
      {"change_points", s.change_points},
      {"levels", levels},
      {"steps", steps},
      {"stride_bytes", sweep.stride()},
      {"order", sweep.layout().kind == Layout::sequential ? "sequential" : "one per page, random"},
      {"cost", sweep.cost()}};
}

nlohmann::json refined_evidence(const RefinedStep& r) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const auto& v : r.verdicts) {
    verdicts.push_back({{"footprint_bytes", v.footprint_bytes},
                        {"miss_fraction", v.miss_fraction},
                        {"fits", v.fits}});
  }
  return {{"threshold_cycles", r.threshold_cycles},
          {"miss_floor_cycles", r.miss_floor_cycles},
          {"edge_bytes", r.edge_bytes},
          {"first_miss_bytes", r.first_miss_bytes},
          {"step_confidence", r.step.confidence},
          {"edge_confidence", r.edge_confidence},
          {"verdicts", verdicts}};
}

ConfidenceFactor step_factor(const StaircaseStep& step) {
  return edge(step.confidence, "staircase step: KS significance " +
                                   format_number(step.significance, 3) + " x contrast " +
                                   format_number(step.contrast, 3) + " x sharpness " +
                                   format_number(step.sharpness, 3));
}

Confidence refined_step_confidence(const RefinedStep& r) {
  return {step_factor(r.step),
          edge(r.edge_confidence, "section search edge: agreement x contrast of " +
                                      std::to_string(r.verdicts.size()) + " fit verdicts")};
}

Property latency_of_level(const Sweep& sweep, const StaircaseLevel& level, double clock_khz,
                          const std::string& method) {
  Property p;
  p.name = "latency";
  p.unit = "cycles";
  p.value = level.latency;
  p.spread = level.spread;
  if (clock_khz > 0) p.seconds_value = level.latency / (clock_khz * 1e3);
  p.method = method;
  p.evidence = {{"level_bytes", {level.from_bytes, level.to_bytes}},
                {"statistic", "median of the per-footprint medians"}};
  const auto samples = sweep.pooled(level);
  set_confidence(p,
                 {share_within(samples, level.latency, kDescribedBand, "accesses of the level")});
  return p;
}

Property size_from_step(const RefinedStep& r, const std::string& method) {
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.value = r.edge_bytes;
  p.method = method;
  p.evidence = refined_evidence(r);
  set_confidence(p, refined_step_confidence(r));
  return p;
}

Property lower_bound_size(const StaircaseLevel& level, const std::string& why,
                          const std::string& method) {
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.value = level.to_bytes;
  p.inconclusive = true;
  p.bound = Bound::lower;
  p.note = "lower bound: " + why;
  p.method = method;
  p.evidence = {{"bound", "lower"}};
  return p;
}

}  // namespace memtopo::staircase
