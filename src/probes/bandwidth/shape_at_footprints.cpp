#include "probes/bandwidth/shape_at_footprints.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/stats.hpp"
#include "model/unit_factors.hpp"
#include "model/units.hpp"

namespace memtopo {
namespace {

std::string placement_of(const StreamMeasurement& m) {
  return std::string(to_string(m.spec.placement));
}

// "+1.62 %": how far `rate` lies from `reference`.
std::string percent_from(double rate, double reference) {
  const double apart = (rate / reference - 1) * kPercent;
  return (apart >= 0 ? "+" : "") + format_number(apart, 2) + " %";
}

// "4.55 TB/s at 8 GiB": a sweep's finding and its largest footprint.
std::string at_largest(const DramFootprintSweep& sweep, double rate) {
  return format_rate(rate) + " at " +
         format_bytes(static_cast<double>(sweep.points.front().result.footprint_bytes));
}

}  // namespace

std::optional<double> largest_footprints_rate(const DramFootprintSweep& sweep) {
  const std::vector<double> samples = largest_footprints_samples(sweep);
  if (samples.empty()) return std::nullopt;
  return summarize(samples).p50;
}

bool other_shape_may_be_faster(const OpOutcome& outcome) {
  if (!outcome.other_shape || !outcome.footprint_sweep) return false;
  const DramFootprintSweep& sweep = *outcome.footprint_sweep;
  const std::optional<double> finding = largest_footprints_rate(sweep);
  const StreamMeasurement& other = *outcome.other_shape;
  if (!finding || other.bytes_per_second.empty()) return false;
  std::vector<const StreamMeasurement*> launches{&outcome.final, &other};
  for (const StreamMeasurement& point : sweep.points) launches.push_back(&point);
  const double launch_stdev = pooled_launch_stdev(launches);
  const double n_finding = static_cast<double>(largest_footprints_samples(sweep).size());
  const double n_other = static_cast<double>(other.bytes_per_second.size());
  const double standard_error = launch_stdev * std::sqrt(1 / n_finding + 1 / n_other);
  const double margin =
      std::max(outcome.search.min_gain * *finding, kAgreementErrors * standard_error);
  return other.median_bytes_per_second - *finding > margin;
}

OpOutcome other_shape_outcome(const OpOutcome& outcome) {
  OpOutcome other;
  other.search.min_gain = outcome.search.min_gain;
  other.final = *outcome.other_shape;
  return other;
}

void keep_faster_shape(OpOutcome& outcome, OpOutcome other) {
  const double kept = largest_footprints_rate(*outcome.footprint_sweep).value_or(0);
  const std::optional<double> rival =
      other.footprint_sweep ? largest_footprints_rate(*other.footprint_sweep) : std::nullopt;
  const double search_rate = outcome.final.median_bytes_per_second;
  const double other_search_rate = other.final.median_bytes_per_second;
  const std::string winner = placement_of(outcome.final);
  const std::string loser = placement_of(other.final);
  const double rival_rate = rival.value_or(0);
  if (!(rival_rate > kept)) {
    outcome.shape_choice =
        "the other shape (" + loser + ") read " + format_rate(other_search_rate) +
        " at the search's footprint, " + percent_from(other_search_rate, kept) +
        " against the finding, so it was swept too: " +
        (rival ? at_largest(*other.footprint_sweep, rival_rate) + ", no faster than " + winner +
                     "'s " + at_largest(*outcome.footprint_sweep, kept)
               : std::string("no footprint could run")) +
        "; the finding stays " + winner + "'s";
    outcome.other_shape_sweep = std::move(other.footprint_sweep);
    return;
  }
  outcome.shape_choice = "the search footprint's winner (" + winner + ", " +
                         format_rate(search_rate) + " there) read " +
                         at_largest(*outcome.footprint_sweep, kept) + " (" +
                         percent_from(kept, search_rate) + "); the other shape (" + loser + ", " +
                         format_rate(other_search_rate) + " at the search's footprint) held " +
                         at_largest(*other.footprint_sweep, rival_rate) + " (" +
                         percent_from(rival_rate, kept) + "): the finding is " + loser + "'s";
  outcome.other_shape = std::move(outcome.final);
  outcome.other_shape_sweep = std::move(outcome.footprint_sweep);
  outcome.final = std::move(other.final);
  outcome.footprint_sweep = std::move(other.footprint_sweep);
  outcome.ties.clear();  // they tied with the displaced shape's configuration
}

}  // namespace memtopo
