#include "study/strided/strided_common.hpp"

#include <algorithm>

#include "backend/backend.hpp"
#include "model/units.hpp"
#include "probes/core/findings.hpp"

namespace memtopo::study {

Granularity topology_granularity(const StudyContext& context, const std::string& element,
                                 const std::string& property) {
  const std::string name = element + "." + property;
  if (!context.discovery) return {std::nullopt, name + " not measured (no --topology)", {}, property};
  const Property* found = conclusive_finding(*context.discovery, element, property);
  if (!found) return {std::nullopt, name + " not measured (not in --topology)", {}, property};
  const double bytes = found->value.get<double>();
  return {bytes, name + " = " + format_value(found->value, found->unit) + " (--topology)",
          found->confidence, property};
}

std::vector<Granularity> measured_granularities(const StudyContext& context, AccessSpace space) {
  const std::string element = first_level_element(space);
  std::vector<Granularity> measured;
  if (space == AccessSpace::shared) {
    const Granularity banks = topology_granularity(context, element, "banks");
    const Granularity width = topology_granularity(context, element, "bank_width");
    if (banks.bytes && width.bytes) {
      measured.push_back({*banks.bytes * *width.bytes, banks.source + " x " + width.source,
                          banks.confidence, "bank row"});
    }
    return measured;
  }
  for (const char* kind : {"sector", "line"}) {
    Granularity granularity = topology_granularity(context, element, kind);
    if (granularity.bytes) measured.push_back(std::move(granularity));
  }
  return measured;
}

std::vector<GranularityCandidate> granularity_candidates(
    const std::vector<CurvePoint>& curve, const std::vector<Granularity>& measured,
    const std::function<double(double x, double bytes)>& blocks_at) {
  std::vector<double> sizes;
  for (const Granularity& granularity : measured) sizes.push_back(*granularity.bytes);
  std::vector<GranularityCandidate> candidates;
  for (double bytes : candidate_granularities(sizes)) {
    GranularityCandidate candidate{bytes, {}, false};
    for (const CurvePoint& point : curve) candidate.blocks.push_back(blocks_at(point.x, bytes));
    candidate.from_topology = std::find(sizes.begin(), sizes.end(), bytes) != sizes.end();
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

const Granularity* matching_granularity(const GranularityChoice& choice,
                                        const std::vector<Granularity>& measured) {
  for (const Granularity& granularity : measured) {
    if (granularity.bytes == choice.best.granularity_bytes) return &granularity;
  }
  return nullptr;
}

Confidence granularity_confidence(const GranularityChoice& choice, std::size_t points,
                                  const std::vector<Granularity>& measured,
                                  const std::string& points_name) {
  const GranularityFit& fit = choice.best;
  Confidence confidence{agreement(fit.explained_count, points,
                                  points_name + " within 25 % of min(cap, rate / " +
                                      format_bytes(fit.granularity_bytes) + " blocks touched)")};
  if (!choice.tied_granularities.empty()) {
    std::string tied;
    for (double bytes : choice.tied_granularities) {
      tied += (tied.empty() ? "" : ", ") + format_bytes(bytes);
    }
    confidence *= methods_agreeing(1, 1 + choice.tied_granularities.size(),
                                   "granularities explaining as many " + points_name + ": " +
                                       format_bytes(fit.granularity_bytes) + ", " + tied);
  }
  if (!measured.empty() && !matching_granularity(choice, measured)) {
    confidence *= methods_agreeing(1, 2, "the topology's granularities (" +
                                             granularity_ties(choice, measured) +
                                             ") differ from " +
                                             format_bytes(fit.granularity_bytes));
  }
  return confidence;
}

std::string granularity_ties(const GranularityChoice& choice,
                             const std::vector<Granularity>& measured) {
  if (const Granularity* match = matching_granularity(choice, measured)) return match->source;
  std::string sources;
  for (const Granularity& granularity : measured) {
    sources += (sources.empty() ? "" : ", ") + granularity.source;
  }
  return sources.empty() ? "nothing measured to tie it to (no --topology, or not in it)" : sources;
}

std::string first_level_element(AccessSpace space) {
  switch (space) {
    case AccessSpace::cg:
      return "l2";
    case AccessSpace::tex:
      return "tex";
    case AccessSpace::constant:
      return "constant_l1";
    case AccessSpace::shared:
      return "shared";
    default:
      return "l1";
  }
}

StridedMeasurement measure_strided(const StudyContext& context, const StridedAccessSpec& spec) {
  StridedMeasurement measurement;
  try {
    StridedAccessResult result;
    try {
      result = context.run_strided(spec);
    } catch (const StreamsUnsupported& unsupported) {
      // No throughput here; the latency may still be measurable.
      if (spec.latency_requests == 0) throw;
      measurement.skipped = std::string("throughput: ") + unsupported.what();
      StridedAccessSpec latency_only = spec;
      latency_only.timed_launches = 0;
      result = context.run_strided(latency_only);
    }
    for (double seconds : result.seconds) {
      measurement.bytes_per_second.push_back(static_cast<double>(result.requested_bytes) / seconds);
    }
    measurement.latency_cycles = result.latency_cycles;
  } catch (const StreamsUnsupported& unsupported) {
    measurement.skipped = unsupported.what();
  } catch (const ExperimentError& error) {
    measurement.skipped = error.what();
  }
  return measurement;
}

Cell cell_or_missing(const std::vector<double>& samples, const std::string& why) {
  if (samples.empty()) return missing_cell(why.empty() ? "not measured" : why);
  return measured_cell(samples);
}

void append_trace_rows(std::vector<std::string>& rows, const std::string& label,
                       const StridedMeasurement& measurement) {
  for (std::size_t i = 0; i < measurement.bytes_per_second.size(); ++i) {
    rows.push_back(label + ",bytes_per_second," + std::to_string(i) + "," +
                   format_number(measurement.bytes_per_second[i], 0));
  }
  for (std::size_t i = 0; i < measurement.latency_cycles.size(); ++i) {
    rows.push_back(label + ",latency_cycles," + std::to_string(i) + "," +
                   format_number(measurement.latency_cycles[i], 1));
  }
}

}  // namespace memtopo::study
