// l2.line: one fit verdict per stride 7 x unit over 3/4 of 7 x the measured l2.size, units from
// 1 KiB down to the sector (the smallest that fits is the line), a cross-check at the line and a
// contiguous check of the answer (l2_line_probe.hpp, docs/method.md).
#include "probes/line/l2_line_probe.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "analysis/line_from_fits.hpp"
#include "analysis/size_rule.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/line/alone_chases.hpp"
#include "probes/line/line_constants.hpp"

namespace memtopo {
namespace {

// Fewer chain elements than this are too few to judge a fit by.
constexpr std::uint64_t kMinJudgedElements = 64;
// Timed loads per line chase, after one warm pass: the oldest lines of the chain, the first to
// go under any recency-based policy; a full timed pass would double every chase's loads.
constexpr std::uint32_t kLineTimedLoads = 4096;
// The contiguous check chases 5/4 of the size at the answer's own stride (see below).
constexpr std::uint64_t kContiguousNumerator = 5, kContiguousDenominator = 4;

struct L2LinePlan {
  std::uint64_t size_bytes = 0;
  std::uint64_t size_stride_bytes = 0;  // the stride the size staircase chased at (0: unknown)
  DeviceWideThreshold threshold;
  std::uint64_t sector_bytes = 0;  // measured, or kSmallestLineBytes
  bool sector_measured = false;
  std::uint64_t prime = kLinePrime;     // strides prime x unit
  std::uint64_t classify_bytes = 0;     // 3/4 of prime x the size
  std::uint64_t cross_check_bytes = 0;  // 5/4 of prime x the size
  std::vector<std::uint64_t> units;     // descending
  std::uint32_t timed_loads = 0;
};

// Units from the largest worth trying down to the sector (descending: the cheapest chases first,
// and the first miss ends the ladder since every smaller unit misses too).
std::vector<std::uint64_t> descending_units(std::uint64_t sector, std::uint64_t classify_bytes,
                                            std::uint64_t prime) {
  std::vector<std::uint64_t> units;
  for (std::uint64_t unit = sector;
       unit <= kLargestUnitBytes && classify_bytes / (prime * unit) >= kMinJudgedElements;
       unit *= 2) {
    units.insert(units.begin(), unit);
  }
  return units;
}

// The plan from the measured size (and its threshold) and sector; skips without them or when
// the backend cannot chase the cross-check.
L2LinePlan plan_l2_line(const ProbeContext& ctx, const LineTarget& target) {
  const Property* size = conclusive_finding(ctx.topology, target.element, "size");
  const auto size_bytes = finding_count(ctx.topology, target.element, "size");
  if (!size || !size_bytes) {
    throw ProbeSkipped("needs a measured " + target.element +
                       ".size (absent or inconclusive in this run): the capacity one SM fills "
                       "is what the strides are planned from");
  }
  const auto threshold = device_wide_threshold(size->evidence);
  if (!threshold) {
    throw ProbeSkipped(target.element + ".size has no threshold_cycles in its evidence");
  }
  L2LinePlan plan;
  plan.size_bytes = *size_bytes;
  plan.size_stride_bytes = staircase_stride_bytes(size->evidence).value_or(0);
  plan.threshold = *threshold;
  // What a miss fetches (l2.sector's probe writes it): the ladder's smallest unit.
  const auto sector = finding_count(ctx.topology, target.element, "fetch_granularity");
  plan.sector_measured = sector.has_value();
  plan.sector_bytes = sector.value_or(kSmallestLineBytes);
  plan.timed_loads = std::min(kLineTimedLoads, ctx.backend.limits().max_timed_loads);
  return plan;
}

// The plan's footprints and units for strides `prime` x unit; nullopt when the backend cannot
// chase the cross-check or the cache is too small for a ladder.
std::optional<L2LinePlan> with_prime(const ProbeContext& ctx, L2LinePlan plan,
                                     std::uint64_t prime) {
  plan.prime = prime;
  plan.classify_bytes = plan.size_bytes * prime * kClassifyNumerator / kClassifyDenominator;
  plan.cross_check_bytes = plan.size_bytes * prime * kCrossCheckNumerator / kCrossCheckDenominator;
  if (plan.cross_check_bytes > ctx.backend.limits().max_footprint_bytes) return std::nullopt;
  plan.units = descending_units(plan.sector_bytes, plan.classify_bytes, prime);
  if (plan.units.empty()) return std::nullopt;
  return plan;
}

// The first prime's plan, or the reason it cannot run as a skip.
L2LinePlan first_prime_plan(const ProbeContext& ctx, const L2LinePlan& base) {
  if (auto plan = with_prime(ctx, base, kLinePrime)) return *plan;
  const std::uint64_t cross_check =
      base.size_bytes * kLinePrime * kCrossCheckNumerator / kCrossCheckDenominator;
  if (cross_check > ctx.backend.limits().max_footprint_bytes) {
    throw ProbeSkipped("the backend cannot chase " + format_bytes(cross_check) + ", " +
                       std::to_string(kLinePrime) + " x 5/4 of the measured size");
  }
  throw ProbeSkipped("the cache is too small for a stride ladder");
}

// A warm sequential chase alone at `stride` over a footprint target (rounded down to it), judged
// with the size's threshold: its verdict and evidence.
struct StrideFit {
  FitVerdict verdict;
  nlohmann::json evidence;
};

// What the steps found: every unit's verdict (descending, to the first miss), the cross-check at
// the smallest fitting unit and the contiguous check of the answer, with their evidence.
struct UnitVerdicts {
  std::vector<UnitFit> fits;
  nlohmann::json evidence = nlohmann::json::array();
};
struct CrossCheck {
  std::optional<UnitFit> fit;
  nlohmann::json evidence;  // null when not run
};
struct ContiguousCheck {
  bool contradicts = false;
  nlohmann::json evidence;  // null when not run
};

// The chases of the L2 line, each alone on the device, and the steps built from them.
class L2LineChases {
 public:
  L2LineChases(ProbeContext& ctx, const LineTarget& target, const std::string& id,
               const L2LinePlan& plan)
      : ctx_(ctx), target_(target), id_(id), plan_(plan), chases_(ctx, id) {
    rule_.threshold_cycles = plan.threshold.cycles;
  }

  // Every unit at the classifying footprint, descending until the first miss.
  UnitVerdicts judge_units() {
    UnitVerdicts out;
    for (std::uint64_t unit : plan_.units) {
      ctx_.progress(id_ + ": unit " + std::to_string(unit) + " B (stride " +
                    std::to_string(plan_.prime * unit) + " B) over " +
                    format_bytes(plan_.classify_bytes));
      const StrideFit fit = at_unit(plan_.classify_bytes, unit, "unit" + std::to_string(unit));
      out.fits.push_back({unit, fit.verdict.fits, fit.verdict.miss_score});
      out.evidence.push_back(fit.evidence);
      if (!fit.verdict.fits) break;
    }
    return out;
  }

  // The smallest fitting unit over 5/4 of 7 x the size: it must miss.
  CrossCheck cross_check(const std::vector<UnitFit>& fits) {
    const auto smallest_fit =
        std::find_if(fits.rbegin(), fits.rend(), [](const UnitFit& f) { return f.fits; });
    if (smallest_fit == fits.rend()) return {};
    const std::uint64_t unit = smallest_fit->unit_bytes;
    ctx_.progress(id_ + ": cross-check at unit " + std::to_string(unit) + " B over " +
                  format_bytes(plan_.cross_check_bytes));
    const StrideFit fit = at_unit(plan_.cross_check_bytes, unit, "cross_check");
    return {UnitFit{unit, fit.verdict.fits, fit.verdict.miss_score}, fit.evidence};
  }

  // Contiguous check of the answer u: a sequential chase at stride u itself over 5/4 of the
  // size. With a line of u every element takes a line of its own, the chase needs 5/4 of the
  // capacity and misses (a modulo cache reaches no more sets at stride u). If it fits, the cache
  // holds more than size / u elements u apart: its line is smaller than u, and the odd strides'
  // misses came from elsewhere (on Hopper: hashed L2 slices and TLB misses at footprints of
  // hundreds of MiB, which make L2 hits slower than the threshold). It can only fit when u
  // exceeds the stride the size was measured at (below that the size already counts a line per
  // element), so it runs only then.
  ContiguousCheck contiguous_check(const FitLadderLine& inference) {
    if (!inference.line_bytes || *inference.line_bytes <= plan_.sector_bytes ||
        *inference.line_bytes <= plan_.size_stride_bytes) {
      return {};
    }
    const std::uint64_t stride = *inference.line_bytes;
    const std::uint64_t footprint_target =
        plan_.size_bytes * kContiguousNumerator / kContiguousDenominator;
    ctx_.progress(id_ + ": contiguous check at stride " + std::to_string(stride) + " B over " +
                  format_bytes(footprint_target));
    StrideFit fit = at_stride(footprint_target, stride, "contiguous_check");
    fit.evidence["contradicts"] = fit.verdict.fits;
    return {fit.verdict.fits, std::move(fit.evidence)};
  }

  nlohmann::json cost_evidence() const { return chases_.cost_evidence(); }

 private:
  // Sequential: the capacity argument assumes address order.
  StrideFit at_stride(std::uint64_t footprint_target, std::uint64_t stride,
                      const std::string& phase) {
    const std::uint64_t footprint = round_down(footprint_target, stride);
    const Trace trace =
        chases_.run(make_chase(target_.path, footprint, static_cast<std::uint32_t>(stride))
                        .timed_loads(plan_.timed_loads)
                        .warming_as_a_stream(),  // sequential: the same lines in order
                    phase);
    const FitVerdict verdict = judge_fit(corrected_cycles(trace), trace.indices, rule_);
    return {verdict,
            {{"stride_bytes", stride},
             {"elements", footprint / stride},
             {"verdict", verdict_evidence(verdict, footprint)}}};
  }
  StrideFit at_unit(std::uint64_t footprint_target, std::uint64_t unit, const std::string& phase) {
    StrideFit fit = at_stride(footprint_target, plan_.prime * unit, phase);
    fit.evidence["unit_bytes"] = unit;
    return fit;
  }

  ProbeContext& ctx_;
  const LineTarget& target_;
  const std::string& id_;
  const L2LinePlan& plan_;
  AloneChases chases_;
  FitRule rule_;
};

std::string l2_line_method(const LineTarget& target, const L2LinePlan& plan) {
  char method[700];
  std::snprintf(method, sizeof method,
                "capacity per stride, one fit verdict each: warm pointer chases via %s, alone on "
                "the device, sequential, 1 warm pass + %u timed loads, judged with the "
                "%s.size threshold; strides %llu x unit for units %llu B down to %s%llu B, each "
                "over 3/4 of %llu x the measured size %s (held only when unit >= line); line = "
                "the smallest unit that fits; cross-check: 5/4 of it must miss there",
                std::string(to_string(target.path)).c_str(), plan.timed_loads,
                target.element.c_str(), static_cast<unsigned long long>(plan.prime),
                static_cast<unsigned long long>(plan.units.front()),
                plan.sector_measured ? "the measured sector " : "an assumed ",
                static_cast<unsigned long long>(plan.sector_bytes),
                static_cast<unsigned long long>(plan.prime), format_bytes(plan.size_bytes).c_str());
  return method;
}

nlohmann::json l2_line_evidence(const LineTarget& target, const L2LinePlan& plan,
                                const FitLadderLine& inference) {
  return {{"path", to_string(target.path)},
          {"size_bytes", plan.size_bytes},
          {"sector_bytes",
           plan.sector_measured ? nlohmann::json(plan.sector_bytes) : nlohmann::json(nullptr)},
          {"prime", plan.prime},
          {"threshold_cycles", plan.threshold.cycles},
          {"threshold_rule", plan.threshold.rule},
          {"timed_loads", plan.timed_loads},
          {"classify_footprint_bytes", plan.classify_bytes},
          {"cross_check_footprint_bytes", plan.cross_check_bytes},
          {"smallest_fitting_unit_bytes", inference.smallest_fitting_unit},
          {"largest_missing_unit_bytes", inference.largest_missing_unit},
          {"contrast", inference.contrast},
          {"cross_check_agrees", inference.cross_check_agrees},
          {"size_over_capacity_bytes",
           {{"low_exclusive", inference.size_over_capacity_low_bytes},
            {"high", inference.size_over_capacity_high_bytes}}}};
}

// The line, or the bound a contradicting contiguous check leaves, or inconclusive.
void conclude_l2_line(Property& p, const L2LinePlan& plan, const FitLadderLine& inference,
                      bool contradicted) {
  p.note = inference.note;
  if (contradicted) {
    // Known: the line is below the odd strides' answer. Reported as that bound, inconclusive.
    p.value = *inference.line_bytes;
    p.bound = Bound::upper;
    p.inconclusive = true;
    p.note = "the odd strides say " + std::to_string(*inference.line_bytes) +
             " B, but a sequential chase at that stride over 5/4 of the size fits: the cache "
             "holds more elements that far apart than size / stride, so its line is smaller";
  } else if (inference.line_bytes) {
    p.value = *inference.line_bytes;
    p.evidence["sectored"] = *inference.line_bytes > plan.sector_bytes;
    set_confidence(p, inference.confidence);
  } else {
    p.value = nullptr;
    p.inconclusive = true;
  }
}


// What one prime's ladder found.
struct PrimeLadder {
  UnitVerdicts units;
  CrossCheck cross;
  FitLadderLine inference;
};

// `chases` plans from the plan it was made with, whose prime may have changed since.
PrimeLadder climb_prime(L2LineChases& chases, const L2LinePlan& plan) {
  PrimeLadder ladder;
  ladder.units = chases.judge_units();
  ladder.cross = chases.cross_check(ladder.units.fits);
  ladder.inference =
      infer_line_from_unit_fits(ladder.units.fits, plan.sector_bytes, ladder.cross.fit);
  return ladder;
}

// No unit held the prime times the size: the prime may divide the set count (every stride
// prime x unit then reaches a prime-th of the sets; 126 MiB of 2 KiB sets is 7 x 9216 sets).
bool held_nothing(const PrimeLadder& ladder) {
  return std::none_of(ladder.units.fits.begin(), ladder.units.fits.end(),
                      [](const UnitFit& f) { return f.fits; });
}

}  // namespace

void measure_device_cache_line(ProbeContext& ctx, const LineTarget& target, const std::string& id) {
  L2LinePlan plan = first_prime_plan(ctx, plan_l2_line(ctx, target));
  L2LineChases chases(ctx, target, id, plan);
  PrimeLadder ladder = climb_prime(chases, plan);
  // The next of kLinePrimes while the last held nothing, as the SM-local line probe does.
  nlohmann::json tried = nlohmann::json::array();
  for (std::size_t k = 1; k < kLinePrimes.size() && held_nothing(ladder); ++k) {
    const std::optional<L2LinePlan> next = with_prime(ctx, plan, kLinePrimes[k]);
    if (!next) break;
    tried.push_back({{"prime", plan.prime},
                     {"note", ladder.inference.note},
                     {"units", std::move(ladder.units.evidence)}});
    plan = *next;
    ladder = climb_prime(chases, plan);
  }
  ContiguousCheck contiguous = chases.contiguous_check(ladder.inference);

  Property p;
  p.name = "line";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = l2_line_method(target, plan);
  p.evidence = l2_line_evidence(target, plan, ladder.inference);
  p.evidence["units"] = std::move(ladder.units.evidence);
  p.evidence["cross_check"] = std::move(ladder.cross.evidence);
  p.evidence["contiguous_check"] = std::move(contiguous.evidence);
  p.evidence["cost"] = chases.cost_evidence();
  if (!tried.empty()) p.evidence["primes_tried_before"] = std::move(tried);
  conclude_l2_line(p, plan, ladder.inference, contiguous.contradicts);
  element_for(ctx.topology, target.element).set(std::move(p));
}

}  // namespace memtopo
