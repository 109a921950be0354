#include "probes/bandwidth/bandwidth_findings.hpp"

#include <algorithm>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "model/unit_factors.hpp"
#include "model/units.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// A level's bandwidth describes its launches when they lie within 3 % of the p50: launches of a
// saturated level repeat to well under a percent; clock changes or interference spread them.
constexpr double kBandwidthBand = 0.03;
constexpr double kBitsPerByte = 8;
constexpr double kTransfersPerClock = 2;  // double data rate

std::string instructions(const StreamSpec& spec) {
  const auto load = [&]() -> std::string {
    switch (spec.path) {
      case LoadPath::ca:
        return "ld.global";
      case LoadPath::cg:
        return "ld.global.cg";
      case LoadPath::nc:
        return "ld.global.nc";
      case LoadPath::tex:
        return "tex1Dfetch";
      case LoadPath::shared:
        return "ld.shared";
      default:
        return std::string(to_string(spec.path));
    }
  };
  const std::string store = spec.path == LoadPath::shared ? "st.shared" : "st.global";
  switch (spec.op) {
    case StreamOp::read:
      return load();
    case StreamOp::write:
      return store;
    case StreamOp::copy:
      return load() + " + " + store;
    case StreamOp::triad:
      return "2 x " + load() + " + " + store;
    case StreamOp::triad3:
      return "3 x " + load() + " + " + store;
  }
  return "?";
}

// What a triad is, for its evidence: a reader comparing it with STREAM or gpu-stream needs to
// know which mix it is and that the bytes are counted alike.
constexpr const char* kTriadDefinition =
    "a[i] = b[i] + s x c[i] over three arrays of the footprint each: 2 reads to 1 write; bytes "
    "moved are all three arrays' (3 x the footprint a pass), as STREAM counts its triad";
constexpr const char* kTriad3Definition =
    "a[i] = b[i] x d[i] + c[i] over four arrays of the footprint each: 3 reads to 1 write; bytes "
    "moved are all four arrays' (4 x the footprint a pass), as gpu-stream counts its triad "
    "kernel (the same operation)";

std::string method_of(const StreamMeasurement& m) {
  const StreamSpec& spec = m.spec;
  const bool triad = spec.op == StreamOp::triad || spec.op == StreamOp::triad3;
  const std::string arrays = spec.op == StreamOp::triad3 ? "four arrays of "
                             : triad                     ? "three arrays of "
                                                         : "one array of ";
  const std::string where =
      spec.placement == StreamPlacement::per_block ? "every block going over one window of "
      : spec.placement == StreamPlacement::one_pass
          ? "a one-pass grid (one tile per warp, blocks in waves) over " + arrays
          : "all SMs sharing " + arrays;
  const std::string search =
      spec.op == StreamOp::triad3
          ? "the triad's two launch shapes (its finding's and the other placement's), no search "
            "of its own"
      : triad ? "the faster of the looping copy's final configuration and a one-pass grid at every "
              "threads x unroll (no search of its own)"
            : "best launch of a search over blocks per SM x threads x vector x unroll";
  return std::string(to_string(spec.op)) + " stream of " + instructions(spec) + ", " + where +
         format_bytes(static_cast<double>(m.result.footprint_bytes)) + (triad ? " each" : "") +
         "; " + search + "; p50 of " + std::to_string(m.bytes_per_second.size()) +
         " timed launches";
}

nlohmann::json evidence_of(const OpOutcome& outcome, const FootprintPlan& plan) {
  const StreamMeasurement& m = outcome.final;
  nlohmann::json launch = to_json(config_of(m));
  launch["bytes_per_launch"] = m.result.bytes_moved;
  launch["grid_blocks"] = stream_geometry(m.spec, m.result.sms).blocks;
  nlohmann::json evidence = {
      {"op", std::string(to_string(m.spec.op))},
      {"path", std::string(to_string(m.spec.path))},
      {"placement", std::string(to_string(m.spec.placement))},
      {"footprint_bytes", m.result.footprint_bytes},
      {"footprint_rule", plan.rule},
      {"launch", launch},
      {"sm_clock_khz", m.result.sm_clock_khz},
      {"sm_clock_source", m.spec.placement == StreamPlacement::one_pass
                              ? "NVML during the launches (no warp lives through a "
                                "one-pass launch)"
                              : "measured: %clock64 over %globaltimer in block 0"},
      {"memory_clock_khz", m.result.memory_clock_khz},
      {"sms", m.result.sms},
      {"seconds", m.result.seconds},
      {"search", to_json(outcome.search)}};
  if (m.spec.op == StreamOp::triad) evidence["triad"] = kTriadDefinition;
  if (m.spec.op == StreamOp::triad3) evidence["triad"] = kTriad3Definition;
  if (outcome.search_at_one_clock) {
    evidence["search"]["compared"] =
        "medians scaled to the SM clock of the search's first launches (bytes per cycle)";
  }
  if (outcome.other_shape) {
    const StreamMeasurement& other = *outcome.other_shape;
    evidence["other_launch_shape"] = {{"placement", std::string(to_string(other.spec.placement))},
                                      {"p50_bytes_per_second", other.median_bytes_per_second},
                                      {"bytes_per_launch", other.result.bytes_moved},
                                      {"seconds", other.result.seconds}};
    if (outcome.other_shape_sweep) {
      evidence["other_launch_shape"]["footprint_sweep"] = to_json(*outcome.other_shape_sweep);
      evidence["other_launch_shape"]["reason"] = outcome.shape_choice;
    }
  } else if (!outcome.other_shape_not_run.empty()) {
    evidence["other_launch_shape"] = {{"not_run", outcome.other_shape_not_run}};
  }
  if (!outcome.one_pass_configs.empty()) evidence["one_pass_configs"] = outcome.one_pass_configs;
  if (!outcome.finalists.empty()) evidence["finalists"] = outcome.finalists;
  if (!outcome.ties.empty()) {
    nlohmann::json ties = nlohmann::json::array();
    for (const StreamMeasurement& tie : outcome.ties) {
      ties.push_back(to_json(config_of(tie)));
    }
    evidence["ties"] = std::move(ties);
  }
  // The same configuration's final launches under other conditions, as rows under `name`: each
  // one's condition (`key`: `what` of it), p50 and spread; the first launches' spread as
  // `first_key`.
  const auto others = [&](const char* name, const std::vector<StreamMeasurement>& measured,
                          const char* key, const char* first_key, auto what) {
    nlohmann::json rows = nlohmann::json::array();
    for (const StreamMeasurement& other : measured) {
      rows.push_back({{key, what(other)},
                      {"p50_bytes_per_second", other.median_bytes_per_second},
                      {"spread", spread_evidence(summarize(other.bytes_per_second))}});
    }
    evidence[name] = std::move(rows);
    evidence[first_key] = spread_evidence(summarize(m.bytes_per_second));
  };
  if (!outcome.other_footprints.empty()) {
    others("other_footprints", outcome.other_footprints, "footprint_bytes",
           "planned_footprint_spread",
           [](const StreamMeasurement& o) { return o.result.footprint_bytes; });
  }
  if (outcome.footprint_sweep) {
    evidence["footprint_sweep"] = to_json(*outcome.footprint_sweep);
    evidence["planned_footprint_spread"] = spread_evidence(summarize(m.bytes_per_second));
  }
  return evidence;
}

std::vector<double> scaled(const std::vector<double>& values, double factor) {
  std::vector<double> out;
  for (const double v : values) out.push_back(v * factor);
  return out;
}

// A rate bound by the SM clock (the SM-local levels) at every clock of the run so far: each
// launch's bytes per cycle (its rate over the clock measured during its launches) times each
// reading. Empty when this launch's clock or the run's readings are unknown.
std::vector<double> at_run_clocks(const StreamMeasurement& m, const SmClockLog& clocks) {
  return clocks.at_run_clocks(m.bytes_per_second,
                              std::vector<double>(m.bytes_per_second.size(), m.result.sm_clock_khz),
                              kRunClockQuantiles);
}

// Each launch's bytes per SM per cycle, over the SM clock measured during the launches; empty
// where that clock is unknown.
std::vector<double> bytes_per_sm_cycle(const StreamMeasurement& m) {
  const double per_second = m.result.sms * m.result.sm_clock_khz * kHzPerKhz;
  if (!(per_second > 0)) return {};
  return scaled(m.bytes_per_second, 1 / per_second);
}

}  // namespace

LaunchConfig config_of(const StreamMeasurement& m) {
  return {m.spec.blocks_per_sm, m.spec.threads_per_block, m.spec.vector_bytes, m.spec.unroll};
}

double finalist_rate(const StreamMeasurement& m, bool per_sm_clock) {
  if (per_sm_clock) {
    const std::vector<double> per_cycle = bytes_per_sm_cycle(m);
    if (!per_cycle.empty()) return summarize(per_cycle).p50;
  }
  return m.median_bytes_per_second;
}

Property rate_property(const std::string& name, const OpOutcome& outcome, const FootprintPlan& plan,
                       const SmClockLog* clocks, std::optional<double> peak) {
  const StreamMeasurement& m = outcome.final;
  Property p;
  p.name = name;
  p.unit = "bytes/second";
  p.source = Source::measured;
  p.method = method_of(m);
  if (outcome.finalists.size() > 1) {
    p.method += "; the fastest by these launches of the search's " +
                std::to_string(outcome.finalists.size()) + " fastest configurations";
  }
  p.evidence = evidence_of(outcome, plan);
  const std::vector<double> at_clocks = clocks ? at_run_clocks(m, *clocks) : std::vector<double>{};
  if (!at_clocks.empty()) {
    const std::vector<double> readings = clocks->quantiles(kRunClockQuantiles);
    p.method += "; value and spread over the launches' bytes per SM cycle x " +
                std::to_string(readings.size()) +
                " SM clocks of this run (the clock moves between phases, the rate with it)";
    p.evidence["launch_spread"] = spread_evidence(summarize(m.bytes_per_second));
    p.evidence["run_sm_clock_khz"] = clocks->evidence(kRunClockQuantiles);
  }
  std::vector<double> samples = at_clocks.empty() ? m.bytes_per_second : at_clocks;
  for (const StreamMeasurement& tie : outcome.ties) {
    const std::vector<double> more =
        at_clocks.empty() ? tie.bytes_per_second : at_run_clocks(tie, *clocks);
    samples.insert(samples.end(), more.begin(), more.end());
  }
  if (!outcome.ties.empty()) {
    p.method += "; value and spread over the final launches of " +
                std::to_string(outcome.ties.size() + 1) +
                " finalists within the search's minimum gain of each other (they cannot be "
                "ordered)";
  }
  if (!outcome.other_footprints.empty()) {
    for (const StreamMeasurement& other : outcome.other_footprints) {
      samples.insert(samples.end(), other.bytes_per_second.begin(), other.bytes_per_second.end());
    }
    p.method += "; value and spread over the final launches at " +
                std::to_string(outcome.other_footprints.size() + 1) +
                " footprints inside L2 (the planned one, half and one and a half of it): the "
                "rate moves with the footprint";
  }
  const DramFootprintSweep* sweep = outcome.footprint_sweep ? &*outcome.footprint_sweep : nullptr;
  if (sweep && sweep->agreeing > 0) {
    samples = largest_footprints_samples(*sweep);
    p.method += "; value and spread over the launches of this configuration at the " +
                std::to_string(sweep->agreeing) + " largest of " +
                std::to_string(sweep->points.size()) + " footprints up to " +
                format_bytes(static_cast<double>(sweep->points.front().result.footprint_bytes)) +
                " whose rates agree (each launch beginning where the one before ended), not at "
                "the search's footprint, which an L2 could partly serve";
  }
  if (outcome.other_shape_sweep) {
    p.method += "; both launch shapes swept (the other read faster at the search's footprint "
                "than this finding): the faster at its largest footprints "
                "(evidence.other_launch_shape.reason)";
  }
  p.spread = summarize(samples);
  p.value = p.spread->p50;
  Confidence confidence{share_within(
      samples, p.spread->p50, kBandwidthBand,
      !at_clocks.empty()                  ? "timed launches at the run's SM clocks within 3 % of "
                                            "the p50"
      : !outcome.other_footprints.empty() ? "timed launches at every footprint within 3 % of "
                                            "the p50"
      : sweep && sweep->agreeing > 0      ? "timed launches at the largest footprints within 3 % "
                                            "of the p50"
                                          : "timed launches within 3 % of the p50")};
  if (sweep) confidence *= footprint_agreement(*sweep);
  if (peak && p.spread->p50 > *peak) {
    // The API's peak and the measurement are two figures of one bus that cannot both be right.
    p.evidence["above_peak"] = {{"p50_bytes_per_second", p.spread->p50},
                                {"peak_bytes_per_second", *peak},
                                {"fraction", p.spread->p50 / *peak}};
    confidence *= methods_agreeing(1, 2,
                                   "the measured p50 " + format_rate(p.spread->p50) + " is " +
                                       format_number(p.spread->p50 / *peak * kPercent, 1) +
                                       " % of the API's peak " + format_rate(*peak) +
                                       ": one of the two is not the bus's rate");
  }
  // A footprint planned from a finding (plan.from_finding): the runner caps by it
  // (core/inheritance.hpp).
  set_confidence(p, confidence);
  return p;
}

Property per_sm_clock_property(const Property& rate, const OpOutcome& outcome) {
  const StreamResult& r = outcome.final.result;
  Property p;
  p.name = "bandwidth_per_sm_clock";
  p.unit = "bytes/cycle";
  p.source = Source::derived;
  p.method = "bandwidth / (SMs x the SM clock measured during its timed launches)";
  p.evidence = {{"sms", r.sms}, {"sm_clock_khz", r.sm_clock_khz}};
  std::vector<double> per_cycle = bytes_per_sm_cycle(outcome.final);
  if (per_cycle.empty()) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = "the SM clock during the launches is unknown";
    return p;
  }
  for (const StreamMeasurement& tie : outcome.ties) {
    const std::vector<double> more = bytes_per_sm_cycle(tie);
    per_cycle.insert(per_cycle.end(), more.begin(), more.end());
  }
  if (!outcome.ties.empty()) {
    p.method += "; value and spread over the final launches of the fastest finalist and of " +
                std::to_string(outcome.ties.size()) +
                " within the search's minimum gain of it (they cannot be ordered)";
  }
  p.spread = summarize(per_cycle);
  p.value = p.spread->p50;
  set_confidence(p, Confidence{inherited(rate.confidence.value_or(1), rate.name)});
  return p;
}

std::optional<double> api_peak_bandwidth(const DeviceFacts& facts) {
  if (facts.memory_clock_khz == 0 || facts.memory_bus_width_bits == 0) return std::nullopt;
  return static_cast<double>(facts.memory_clock_khz) * kHzPerKhz * facts.memory_bus_width_bits /
         kBitsPerByte * kTransfersPerClock;
}

std::string above_peak_warning(const std::string& id, const Property& rate) {
  if (!rate.evidence.is_object() || !rate.evidence.contains("above_peak")) return "";
  const nlohmann::json& above = rate.evidence.at("above_peak");
  return id + ": " + format_rate(above.at("p50_bytes_per_second").get<double>()) + " is " +
         format_number(above.at("fraction").get<double>() * kPercent, 1) + " % of the API's peak " +
         format_rate(above.at("peak_bytes_per_second").get<double>()) +
         ": more than the memory bus carries, so either part of it was not DRAM (a cache) or "
         "the API's memory clock or bus width is not the device's (the confidence says so)";
}

void add_api_peak(Element& element, const Property& rate, const DeviceFacts& facts) {
  if (!api_peak_bandwidth(facts)) return;
  const bool simulated = facts.backend == "sim";
  Property peak;
  peak.name = "peak_bandwidth";
  peak.unit = "bytes/second";
  peak.source = Source::api;
  peak.method = std::string("memory clock x bus width x 2 (") +
                (simulated ? "simulated description" : "cudaDeviceGetAttribute") + ")";
  const double peak_rate = *api_peak_bandwidth(facts);
  peak.value = peak_rate;
  peak.evidence = {{"memory_clock_khz", facts.memory_clock_khz},
                   {"memory_bus_width_bits", facts.memory_bus_width_bits}};

  Property fraction;
  fraction.name = "peak_fraction";
  fraction.unit = "";
  fraction.source = Source::derived;
  fraction.method =
      "bandwidth / peak_bandwidth (value and spread: the bandwidth's over the API peak)";
  fraction.value = rate.value.get<double>() / peak_rate;
  if (rate.spread) fraction.spread = scaled(*rate.spread, 1 / peak_rate);
  set_confidence(fraction, Confidence{inherited(rate.confidence.value_or(1), rate.name)});
  element.set(std::move(peak));
  element.set(std::move(fraction));
}

}  // namespace memtopo
