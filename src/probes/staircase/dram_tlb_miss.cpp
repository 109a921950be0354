#include "probes/staircase/dram_tlb_miss.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "model/units.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/latency_modes.hpp"

namespace memtopo::staircase {
namespace {

nlohmann::json conditioning_evidence(const Trace& conditioning, double timed_p50) {
  const Spread spread = summarize(corrected_cycles(conditioning));
  return {{"p50_cycles", spread.p50},
          {"p5_cycles", spread.p5},
          {"p95_cycles", spread.p95},
          {"samples", spread.samples},
          {"first_chase_differs", std::abs(spread.p50 - timed_p50) > kDescribedBand * timed_p50}};
}

}  // namespace

Property dram_latency_tlb_miss(const Trace& timed, const Trace& conditioning, const ChaseSpec& spec,
                               std::uint64_t elements, bool levels_found) {
  const auto corrected = corrected_cycles(timed);
  const Spread spread = summarize(corrected);
  Property p;
  p.name = "latency_tlb_miss";
  p.unit = "cycles";
  p.value = spread.p50;
  p.spread = spread;
  p.raw = summarize(raw_cycles(timed));
  if (timed.clock_khz > 0) p.seconds_value = spread.p50 / (timed.clock_khz * 1e3);
  p.method = "cold pointer chase via cg after flushing L2, no warm pass, one element per " +
             format_bytes(static_cast<double>(spec.stride_bytes)) +
             " stride (at least a page) in random order over " +
             format_bytes(static_cast<double>(spec.footprint_bytes)) +
             ": every load a new line and a page the TLB levels no longer hold; timed on the "
             "second of two such chases (the first sets the state); p50, timing overhead "
             "subtracted";
  p.evidence = {{"footprint_bytes", spec.footprint_bytes},
                {"stride_bytes", spec.stride_bytes},
                {"elements", elements},
                {"samples", corrected.size()},
                {"overhead_cycles", timed.overhead_cycles},
                {"clock_khz", timed.clock_khz},
                {"conditioning_chase", conditioning_evidence(conditioning, spread.p50)},
                {"compare", "dram.latency is page-local (TLB warm)"}};
  if (!levels_found) {
    p.inconclusive = true;
    p.note = "no TLB level was found up to " +
             format_bytes(static_cast<double>(spec.footprint_bytes)) +
             ", so these loads may have hit the TLB: a DRAM latency, not one with TLB misses";
    return p;
  }
  // Two modes (near and far memory): the value is the fast one's p50, both are in the
  // evidence, and each load counts within its own mode's band.
  nlohmann::json modes = nlohmann::json::object();
  const double described = describe_latency_modes(corrected, modes);
  p.value = modes.at("cycles").get<double>();
  if (timed.clock_khz > 0) p.seconds_value = p.value.get<double>() / (timed.clock_khz * 1e3);
  if (modes.contains("modes")) {
    p.method += "; the loads fall into two modes: the fast mode's p50, both in the evidence";
    p.evidence["modes"] = modes.at("modes");
    p.evidence["mode_split"] = modes.at("mode_split");
  }
  set_confidence(p, {share(described, "of the cold loads within 10 % of their mode's p50")});
  return p;
}

}  // namespace memtopo::staircase
