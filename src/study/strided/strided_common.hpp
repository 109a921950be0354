#pragma once
// What the stride and coalescing studies share: the device's strided-request capability, the
// topology values their predictions rest on, and turning a run into table cells and traces.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "backend/strided_access.hpp"
#include "study/strided/curve.hpp"
#include "study/study.hpp"

namespace memtopo::study {

// A granularity a prediction rests on (a sector, a line, a bank row), from --topology.
struct Granularity {
  std::optional<double> bytes;       // nullopt: not measured (no --topology, or no such finding)
  std::string source;                // "l1.sector = 32 B (--topology)" or "l1.sector not measured"
  std::optional<double> confidence;  // the finding's, when it has one
  std::string kind;                  // "sector", "line", "bank row"
};
Granularity topology_granularity(const StudyContext& context, const std::string& element,
                                 const std::string& property);
// The granularities the topology measured for a space's first level: its sector and line, or
// for shared memory its bank row (banks x bank width); only those it has.
std::vector<Granularity> measured_granularities(const StudyContext& context, AccessSpace space);

// Every granularity to try on `curve` (candidate_granularities of the measured ones) with the
// blocks each point touches at it: blocks_at(point's x, granularity bytes).
std::vector<GranularityCandidate> granularity_candidates(
    const std::vector<CurvePoint>& curve, const std::vector<Granularity>& measured,
    const std::function<double(double x, double bytes)>& blocks_at);

// How sure a granularity fit is: agreement over the points it explains, lowered where other
// granularities explain as many points, and where the topology measured granularities for
// this level and the fitted one is none of them. `points` names what a point is ("strides").
Confidence granularity_confidence(const GranularityChoice& choice, std::size_t points,
                                  const std::vector<Granularity>& measured,
                                  const std::string& points_name);
// The measured granularity equal to the fit's, or nullptr.
const Granularity* matching_granularity(const GranularityChoice& choice,
                                        const std::vector<Granularity>& measured);
// "l1.line = 128 B (--topology)", or what the topology says instead when none matches.
std::string granularity_ties(const GranularityChoice& choice,
                             const std::vector<Granularity>& measured);

// The topology element whose sectors serve a space first (ca, nc, local: l1; cg: l2; tex: tex;
// const: constant_l1); shared memory has banks instead.
std::string first_level_element(AccessSpace space);

// What one strided spec measured.
struct StridedMeasurement {
  std::vector<double> bytes_per_second;  // useful (requested) bytes per timed launch
  std::vector<double> latency_cycles;    // per dependent request
  std::string skipped;                   // why this space could not be measured here, or ""
};
// Runs `spec`; a space the device cannot measure (StreamsUnsupported, ExperimentError) comes
// back with `skipped` set rather than failing the study.
StridedMeasurement measure_strided(const StudyContext& context, const StridedAccessSpec& spec);

// A measured cell, or a missing one saying why.
Cell cell_or_missing(const std::vector<double>& samples, const std::string& why);

// Raw samples as trace rows: "<label>,<kind>,<sample>,<value>".
void append_trace_rows(std::vector<std::string>& rows, const std::string& label,
                       const StridedMeasurement& measurement);
inline constexpr const char* kStridedTraceHeader = "configuration,quantity,sample,value";

}  // namespace memtopo::study
