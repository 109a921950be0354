#include "probes/bandwidth/l2_residency.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "model/unit_factors.hpp"
#include "model/units.hpp"

namespace memtopo {
namespace {

// The least margin between an L2 rate and DRAM's that says the stream stayed in the L2. A rate
// within it may be DRAM's rate at another footprint and launch shape: the DRAM search's own
// finalists lie a few per cent apart, and an H200's L2 writes over 5.6 MiB read +0.8 % in one
// run and +1.3 % in another against 4.71 TB/s of DRAM writes, called "stayed" once and not the
// next time. A stream the L2 serves runs far above it (H200 reads: +190 %).
constexpr double kResidencyMargin = 0.05;

// Clearly apart: the p50s differ by more than kResidencyMargin, the search's minimum gain and
// the wider of the two p5..p95 ranges (each over many launches: the L2's at three footprints,
// DRAM's at its largest ones). Stricter than a standard error: "stayed in the L2" needs a
// margin, not only significance, since the L2's own rate moves with its footprint.
bool clearly_apart(const Spread& a, const Spread& b, double min_gain) {
  const double larger = std::max(a.p50, b.p50);
  const double tolerance = std::max(
      {std::max(min_gain, kResidencyMargin) * larger, a.p95 - a.p5, b.p95 - b.p5});
  return std::fabs(a.p50 - b.p50) > tolerance;
}

}  // namespace

void judge_l2_residency(Property& rate, const Property* dram, double min_gain) {
  const std::string dram_id = "dram." + rate.name;
  if (!dram || dram->inconclusive || !dram->spread || !rate.spread || !rate.value.is_number()) {
    rate.evidence["dram_rate"] = {
        {"verdict", "not judged: no conclusive " + dram_id + " to compare with"}};
    return;
  }
  const Spread& inside = *rate.spread;
  const Spread& outside = *dram->spread;
  const double above = (inside.p50 / outside.p50 - 1) * kPercent;
  const std::string numbers = format_rate(inside.p50) + " inside the L2 against " +
                              format_rate(outside.p50) + " from DRAM (" + dram_id + ", " +
                              (above >= 0 ? "+" : "") + format_number(above, 1) + " %)";
  const bool stayed = inside.p50 > outside.p50 && clearly_apart(inside, outside, min_gain);
  rate.evidence["dram_rate"] = {
      {"p50_bytes_per_second", outside.p50},
      {"p5_bytes_per_second", outside.p5},
      {"p95_bytes_per_second", outside.p95},
      {"above_dram_percent", above},
      {"stayed_in_l2", stayed},
      {"verdict", (stayed ? "the footprint stayed in the L2: "
                          : "not shown that the footprint stayed in the L2: ") +
                      numbers}};
  if (stayed) return;
  rate.inconclusive = true;
  rate.bound = Bound::lower;
  rate.confidence.reset();
  rate.evidence.erase("confidence_factors");
  rate.note = numbers +
              ": within the launches' scatter or below, so the stream may have run at DRAM's "
              "rate (an L2 that writes lines back as they come, or one no faster than DRAM), and "
              "whether the footprint stayed in the L2 is not shown; the L2 took at least this";
}

}  // namespace memtopo
