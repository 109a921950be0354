#include "probes/bandwidth/dram_footprints.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/stats.hpp"
#include "model/unit_factors.hpp"
#include "model/units.hpp"
#include "probes/core/chase_helpers.hpp"

namespace memtopo {
namespace {}  // namespace

std::vector<std::uint64_t> dram_sweep_footprints(std::uint64_t planned, std::uint64_t l2_bytes,
                                                 std::uint64_t limit) {
  std::vector<std::uint64_t> footprints;
  const std::uint64_t target = std::max(kDramSweepLeastBytes, kDramSweepL2Multiple * l2_bytes);
  const double least = std::sqrt(2.0) * static_cast<double>(planned);
  for (std::uint64_t f = std::min(target, limit);
       f > 0 && static_cast<double>(f) > least && footprints.size() < kDramSweepPoints; f /= 2) {
    footprints.push_back(f);
  }
  return footprints;
}

double pooled_launch_stdev(const std::vector<const StreamMeasurement*>& measurements) {
  double squares = 0;
  std::size_t launches = 0, groups = 0;
  for (const StreamMeasurement* m : measurements) {
    const std::vector<double>& rates = m->bytes_per_second;
    if (rates.empty()) continue;
    double mean = 0;
    for (const double r : rates) mean += r / static_cast<double>(rates.size());
    for (const double r : rates) squares += (r - mean) * (r - mean);
    launches += rates.size();
    ++groups;
  }
  return launches > groups ? std::sqrt(squares / static_cast<double>(launches - groups)) : 0;
}

bool rates_agree(const StreamMeasurement& a, const StreamMeasurement& b, double min_gain,
                 double launch_stdev) {
  const double na = static_cast<double>(a.bytes_per_second.size());
  const double nb = static_cast<double>(b.bytes_per_second.size());
  const double standard_error = launch_stdev * std::sqrt(1 / na + 1 / nb);
  const double pa = a.median_bytes_per_second, pb = b.median_bytes_per_second;
  const double relative = std::max(min_gain, kFootprintAgreement);
  const double tolerance = std::max(relative * std::max(pa, pb), kAgreementErrors * standard_error);
  return std::fabs(pa - pb) <= tolerance;
}

std::size_t agreeing_largest(const std::vector<StreamMeasurement>& largest_first, double min_gain,
                             double launch_stdev) {
  if (largest_first.empty()) return 0;
  std::size_t k = 1;
  while (k < largest_first.size() &&
         rates_agree(largest_first[0], largest_first[k], min_gain, launch_stdev)) {
    ++k;
  }
  return k;
}

std::vector<double> largest_footprints_samples(const DramFootprintSweep& sweep) {
  std::vector<double> samples;
  for (std::size_t i = 0; i < sweep.agreeing && i < sweep.points.size(); ++i) {
    const std::vector<double>& launches = sweep.points[i].bytes_per_second;
    samples.insert(samples.end(), launches.begin(), launches.end());
  }
  return samples;
}

std::string footprint_disagreement(const DramFootprintSweep& sweep) {
  if (sweep.points.size() < 2 || sweep.agreeing != 1) return "";
  const StreamMeasurement& largest = sweep.points[0];
  const StreamMeasurement& next = sweep.points[1];
  const double apart =
      (next.median_bytes_per_second / largest.median_bytes_per_second - 1) * kPercent;
  return format_rate(largest.median_bytes_per_second) + " at " +
         format_bytes(static_cast<double>(largest.result.footprint_bytes)) + " and " +
         format_rate(next.median_bytes_per_second) + " at " +
         format_bytes(static_cast<double>(next.result.footprint_bytes)) + " (" +
         (apart >= 0 ? "+" : "") + format_number(apart, 2) +
         " %) differ beyond their launches' spread: the rate still moves with the footprint, "
         "and a cache may serve part of the stream";
}

Confidence footprint_agreement(const DramFootprintSweep& sweep) {
  Confidence confidence;
  const double largest = static_cast<double>(
      sweep.points.empty() ? sweep.planned_bytes : sweep.points.front().result.footprint_bytes);
  if (!(largest > 0) || sweep.l2_bytes == 0) return confidence;
  const double l2_share = std::min(1.0, static_cast<double>(sweep.l2_bytes) / largest);
  confidence *=
      share(1 - l2_share, "bytes of a pass over " + format_bytes(largest) + " that an L2 of " +
                              format_bytes(static_cast<double>(sweep.l2_bytes)) +
                              " cannot have answered");
  if (const std::string disagreement = footprint_disagreement(sweep); !disagreement.empty()) {
    confidence *= agreement(0, 1, "the two largest footprints agree: " + disagreement);
  }
  return confidence;
}

nlohmann::json to_json(const DramFootprintSweep& sweep) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    const StreamMeasurement& m = sweep.points[i];
    const double footprint = static_cast<double>(m.result.footprint_bytes);
    nlohmann::json row = {{"footprint_bytes", m.result.footprint_bytes},
                          {"p50_bytes_per_second", m.median_bytes_per_second},
                          {"spread", spread_evidence(summarize(m.bytes_per_second))},
                          {"in_finding", i < sweep.agreeing}};
    if (sweep.l2_bytes > 0 && footprint > 0) {
      row["l2_share_at_most"] = std::min(1.0, static_cast<double>(sweep.l2_bytes) / footprint);
    }
    rows.push_back(std::move(row));
  }
  nlohmann::json out = {{"points", rows},
                        {"agreeing_largest", sweep.agreeing},
                        {"launch_stdev_bytes_per_second", sweep.launch_stdev},
                        {"l2_bytes", sweep.l2_bytes},
                        {"launch_order",
                         "each launch begins where the one before it ended: a "
                         "byte is read again only after the whole footprint"}};
  if (!sweep.not_run.empty()) out["not_run"] = sweep.not_run;
  if (!sweep.capped.empty()) out["capped"] = sweep.capped;
  return out;
}

}  // namespace memtopo
