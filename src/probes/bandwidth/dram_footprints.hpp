#pragma once
// DRAM's rate where no cache can serve it: the winning launch over footprints up to at least
// 8 GiB and 128 L2s, and the rate the largest of them agree on.
//
// A stream reads its array in one unbroken order across launches (stream_launch_start_bytes), so
// a byte comes back only after the whole footprint F. An L2 of C bytes that keeps old lines
// against a stream (not LRU) can still answer up to C bytes of every pass: at most C / F of
// them. At 16 L2s (the search's footprint) that is 6 %; at 128 L2s 0.8 %. So the winner runs
// again at footprints halving down from the largest, and the finding is over the largest ones
// whose rates agree: where the rate no longer moves with the footprint, no cache is in it.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/confidence.hpp"
#include "probes/bandwidth/stream_meter.hpp"

namespace memtopo {

// The largest footprint is at least this (the figure: 8 GiB at ~4.7 TB/s is ~2 ms a
// pass) ...
inline constexpr std::uint64_t kDramSweepLeastBytes = 8ull << 30;
// ... and at least this many times the L2, so that the L2 can hold at most 1/128 of a pass.
inline constexpr std::uint64_t kDramSweepL2Multiple = 128;
// Footprints measured: the largest and those halving down from it, each above the search's
// footprint by more than half an octave.
inline constexpr std::size_t kDramSweepPoints = 3;
// Timed launches per footprint (after one warm-up), each of the final launches' length.
inline constexpr std::uint32_t kDramSweepLaunches = 4;

// The sweep's footprints, largest first: min(max(8 GiB, 128 x `l2_bytes`), `limit`) and its
// halves, at most kDramSweepPoints, each above sqrt(2) x `planned`. Empty when even the largest
// is not.
std::vector<std::uint64_t> dram_sweep_footprints(std::uint64_t planned, std::uint64_t l2_bytes,
                                                 std::uint64_t limit);

// The scatter of one configuration's launches: the standard deviation of every launch from the
// mean of its own measurement, pooled over `measurements` (each footprint's few launches and the
// search footprint's final ones). Far better known than each handful's own: with 4 launches of
// 1 % jitter a handful's own scatter called rates 0.9 % apart different.
double pooled_launch_stdev(const std::vector<const StreamMeasurement*>& measurements);

// Two measurements of one configuration agree when their p50s differ by at most the search's
// minimum gain, kAgreementErrors standard errors of the difference (`launch_stdev` per launch)
// or kFootprintAgreement of the larger. Why the last: where an L2 keeps part of a stream between
// passes, rate(F/2) / rate(F) - 1 estimates how much it inflates rate(F), so two halving
// footprints within 1 % say the largest is within 1 % of DRAM's own rate, inside what a
// bandwidth figure means (HBM refresh alone moves rates by a few per cent). Without it, an H200's
// 8 and 4 GiB (4.66 and 4.68 TB/s, +0.37 %, launches 0.07 % apart) were called different and
// `dram.bandwidth` fell to 0.33 in every run, with every rate whose plan read it.
inline constexpr double kAgreementErrors = 4;
inline constexpr double kFootprintAgreement = 0.01;
bool rates_agree(const StreamMeasurement& a, const StreamMeasurement& b, double min_gain,
                 double launch_stdev);

// What the sweep measured, largest footprint first, and how many of the largest agree with the
// largest (at least 1 when any ran): those are the finding.
struct DramFootprintSweep {
  std::vector<StreamMeasurement> points;
  std::size_t agreeing = 0;
  double launch_stdev = 0;           // pooled_launch_stdev of the points and the search footprint's
  std::vector<std::string> not_run;  // footprints that could not run, and why
  std::uint64_t l2_bytes = 0;        // the larger of the measured and the API's L2 size
  std::uint64_t planned_bytes = 0;   // the search's footprint (the finding's when none ran)
  std::string capped;                // why the largest is below its target ("" when it is not)
};

// The number of points, from the first, whose rate agrees with the first's.
std::size_t agreeing_largest(const std::vector<StreamMeasurement>& largest_first, double min_gain,
                             double launch_stdev);

// Every launch at the footprints the finding is over (the `agreeing` largest).
std::vector<double> largest_footprints_samples(const DramFootprintSweep& sweep);

// "" when the largest footprints agree (or only one ran); otherwise what disagreed, in words:
// the two largest footprints and their p50s.
std::string footprint_disagreement(const DramFootprintSweep& sweep);

// What the sweep says of the finding's confidence: share(1 - L2 / the largest footprint), the
// bytes of a pass that no L2 can have answered; and where the two largest footprints disagree,
// agreement(0 of 1): the one check that the rate stopped moving with the footprint failed.
Confidence footprint_agreement(const DramFootprintSweep& sweep);

// The sweep's evidence: every footprint's p50, spread, whether it is in the finding, and the
// share of its bytes an L2 could at most have answered.
nlohmann::json to_json(const DramFootprintSweep& sweep);

}  // namespace memtopo
