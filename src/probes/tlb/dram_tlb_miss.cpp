#include "probes/tlb/dram_tlb_miss.hpp"

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
  // Two modes (near and far memory): the value, spread and confidence are the near mode's,
  // both modes are the property's `modes`, the mix its `mix`.
  const LatencyDescription d =
      describe_latency({corrected_cycles(timed), raw_cycles(timed)}, true, "cold loads");
  Property p;
  p.name = "latency_tlb_miss";
  p.unit = "cycles";
  p.method = "cold pointer chase via cg after flushing L2, no warm pass, one element per " +
             format_bytes(static_cast<double>(spec.stride_bytes)) +
             " stride (at least a page) in random order over " +
             format_bytes(static_cast<double>(spec.footprint_bytes)) +
             ": every load a new line and a page the TLB levels no longer hold; timed on the "
             "second of two such chases (the first sets the state); p50, timing overhead "
             "subtracted";
  if (!d.modes.empty()) {
    p.method += "; the loads fall into two modes: the near mode's p50, both modes listed";
  }
  const double timed_p50 = d.mix ? d.mix->p50 : d.value.p50;
  p.evidence = {{"footprint_bytes", spec.footprint_bytes},
                {"stride_bytes", spec.stride_bytes},
                {"elements", elements},
                {"samples", timed.cycles.size()},
                {"overhead_cycles", timed.overhead_cycles},
                {"clock_khz", timed.clock_khz},
                {"conditioning_chase", conditioning_evidence(conditioning, timed_p50)},
                {"compare", "dram.latency is page-local (TLB warm)"}};
  set_latency(p, d, timed.clock_khz);
  if (!levels_found) {
    p.inconclusive = true;
    p.note = "no TLB level was found up to " +
             format_bytes(static_cast<double>(spec.footprint_bytes)) +
             ", so these loads may have hit the TLB: a DRAM latency, not one with TLB misses";
    return p;
  }
  set_confidence(p, d.confidence);
  p.note = near_mode_note(d, "lines behind the far L2 partitions");
  return p;
}

}  // namespace memtopo::staircase
