// The findings of a TLB level: reach, entries, page, ways, sets and miss_penalty, from its
// ladder's refined step, its page test and the scan of its sets (tlb_levels.hpp).
#include <algorithm>
#include <string>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "model/units.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/step_findings.hpp"
#include "probes/tlb/tlb_levels.hpp"
#include "probes/tlb/tlb_penalty.hpp"

namespace memtopo::staircase {
namespace {

Property make_property(const std::string& name, const std::string& unit,
                       const std::string& method) {
  Property p;
  p.name = name;
  p.unit = unit;
  p.method = method;
  return p;
}

void set_bound(Property& p, std::uint64_t value, Bound bound, const std::string& note) {
  p.value = value;
  p.inconclusive = true;
  p.bound = bound;
  p.note = note;
  p.evidence["bound"] = to_string(bound);
}

void set_unknown(Property& p, const std::string& note) {
  p.value = nullptr;
  p.inconclusive = true;
  p.note = note;
}

std::string ladder_method(const Ladder& ladder) {
  return "pointer chase via cg, alone on one SM, 64-bit chain of one element per " +
         format_bytes(static_cast<double>(ladder.stride())) +
         " stride at a seeded offset, random cycle, 1 warm + 2 timed passes, 2 to " +
         std::to_string(ladder.max_elements) +
         " elements (chain in L2) on a sqrt(2) grid measured where it may step (every other "
         "length, then the lengths inside gaps that rise beyond the noise, hold a step or ramp, "
         "or thin a plateau); staircase (geometric reduction, PELT, KS), steps refined to one "
         "element";
}

// Why a scan of sets gave neither reading.
std::string unread(const LevelSets& sets) {
  const std::string read =
      "the scan of sets read " + std::to_string(sets.sets.ways.size()) + " sets ";
  const std::string reading =
      !sets.sets.complete ? "the scan of sets " + sets.stopped
      : !overflows_in_fill_order(sets.sets)
          ? read +
                "that overflowed out of fill order (a set of fewer ways after one of more: "
                "misjudged counts, not sets)"
          : read + "of too many different ways to be more than noise";
  return reading + ", and its counts show no ramp of equal sets (" + sets.ramp.why + ")";
}

// miss_penalty of the level: the mean latency of the chains on which every element missed it
// (from the scan of sets) minus the mean of the plateau before its step; without a complete
// scan, the mean of the plateau after the step instead (which a set-associative level's gradual
// overflow lowers a little); a lower bound where a scan ran but could not be read
// (tlb_penalty.hpp).
Property miss_penalty(const MeasuredLevel& level) {
  const Ladder& ladder = *level.ladder;
  const std::size_t k = level.step;
  const auto plateau = [&](const StaircaseLevel& side) {
    return std::vector<double>(
        ladder.staircase.mean.begin() + static_cast<std::ptrdiff_t>(side.first),
        ladder.staircase.mean.begin() + static_cast<std::ptrdiff_t>(side.last) + 1);
  };
  PenaltyInputs in;
  in.before_level = ladder.before(k).mean;
  in.after_level = ladder.after(k).mean;
  in.before = plateau(ladder.before(k));
  in.after = plateau(ladder.after(k));
  if (level.sets && level.sets->exact())
    in.all_missing_mean = level.sets->all_missing_mean_cycles();
  if (level.sets && !level.sets->read()) in.unread = unread(*level.sets);
  // Elements that share the level's pages (a page not known to be at most the stride), visited
  // in random order, hit it in part however long the chain: the plateau after the step is not
  // all misses (a simulated 4096 x 2 MiB level on a 64 KiB ladder read 51 cycles for 160).
  const bool page_within_stride = level.page.exact() ||
                                  (level.page.bound == Bound::upper &&
                                   level.page.bytes <= ladder.stride());
  if (!page_within_stride && in.unread.empty()) {
    in.unread = "the level's page is not known to be at most the ladder's stride (" +
                format_bytes(static_cast<double>(ladder.stride())) +
                "): elements sharing a page, in random order, hit it in part";
  }
  in.stride_bytes = ladder.stride();
  return tlb_miss_penalty(in, Confidence{step_factor(ladder.refined[k].step)});
}

// A page found between two strides is as sure as the pairs at those strides agreed.
std::optional<Confidence> page_confidence(const PageTest& page) {
  if (!page.exact()) return std::nullopt;
  return Confidence{agreement(page.agreeing, page.pairs,
                              "pairs at the strides either side of the page that agreed with "
                              "their stride's verdict")};
}

Property page_property(const PageTest& page) {
  Property p = make_property(
      "page", "bytes",
      "pairs of an element and its twin s further, chased together and apart at power-of-two "
      "strides s: the page is the smallest stride at which the twin no longer finds its "
      "element's entry (the smallest stride that still misses)");
  p.evidence = {{"strides", page.evidence}, {"loads", page.loads}};
  if (!page.earlier.empty()) p.evidence["earlier_tests"] = page.earlier;
  if (!page.unknown.empty()) {
    set_unknown(p, page.unknown);
  } else if (page.bound == Bound::lower) {
    set_bound(p, page.bytes, Bound::lower,
              "lower bound: the twins shared an entry up to the largest stride tested");
  } else if (page.bound == Bound::upper) {
    set_bound(p, page.bytes, Bound::upper,
              "upper bound: the twins missed apart down to the smallest stride tested");
  } else {
    p.value = page.bytes;
    set_confidence(p, *page_confidence(page));
  }
  return p;
}

// The confidence of what the scan of sets gives: the ladder's step and section search, and how
// many of the scan's miss counts the sets explain; off the ramp, how close its slope came to an
// integer, how much of the counts' spread the line explains, and how well the sets the ramp's
// length gives account for its onset.
Confidence sets_confidence(const RefinedStep& step, const LevelSets& sets) {
  Confidence c = refined_step_confidence(step);
  if (sets.exact()) {
    c *= agreement(sets.sets.consistent, sets.sets.steps,
                   "chain lengths whose miss count the sets explain");
    return c;
  }
  const RampFit& ramp = sets.ramp;
  c *= integer_closeness(ramp.slope - 1, "misses added per element on the ramp, less one");
  c *= share(ramp.explained, "of the ramp's miss counts' variance the line explains (R^2)");
  c *= capacity_agreement((ramp.end - ramp.onset) * static_cast<double>(ramp.ways), ramp.onset,
                          "sets from the ramp's length x ways against its onset");
  return c;
}

// entries, sets and ways from the scan of sets (its exact reading, or its ramp); what is known
// without either.
void report_geometry(Element& tlb, const MeasuredLevel& level, const RefinedStep& step,
                     const nlohmann::json& scan_evidence) {
  const std::string method =
      "the level's ladder chased at every chain length from its first miss until every element "
      "missed, counting the elements slow on most passes: a set that overflows adds its ways + 1 "
      "misses at once (paper 000, 4.2, Fig. 11); entries = sum of the sets' ways" +
      std::string(level.sets && level.sets->from_ramp()
                      ? "; read off the ramp of the counts (noisy counts that never reached the "
                        "chain, or reached it with many different ways): ways = its slope - 1, "
                        "sets = (onset + end) / (2 ways + 1)"
                      : "");
  Property entries = make_property("entries", "", method);
  Property sets = make_property("sets", "", method);
  Property ways = make_property("ways", "",
                                method +
                                    "; one integer when every set has the "
                                    "same, else the per-set list, largest first");
  for (Property* p : {&entries, &sets, &ways}) p->evidence = scan_evidence;
  if (level.sets && level.sets->read()) {
    const LevelSets& scan = *level.sets;
    entries.value = scan.entries();
    sets.value = scan.exact() ? scan.sets.ways.size() : scan.ramp.sets;
    ways.value = scan.exact() ? ways_value(scan.sets.ways) : nlohmann::json(scan.ramp.ways);
    const Confidence c = sets_confidence(step, scan);
    for (Property* p : {&entries, &sets, &ways}) set_confidence(*p, c);
  } else if (level.sets) {
    const std::string why = unread(*level.sets);
    set_bound(entries, level.sets->first_miss_elements - 1, Bound::lower,
              "lower bound: the chain one shorter than the first miss fitted; " + why);
    set_unknown(sets, why);
    set_unknown(ways, why);
  } else {
    for (Property* p : {&entries, &sets, &ways}) set_unknown(*p, level.why_no_sets);
  }
  tlb.set(std::move(entries));
  tlb.set(std::move(sets));
  tlb.set(std::move(ways));
}

}  // namespace

void report_level(Topology& topology, const std::string& element, const MeasuredLevel& level) {
  const Ladder& ladder = *level.ladder;
  const RefinedStep& step = ladder.refined[level.step];
  Element& tlb = element_for(topology, element);
  const std::uint64_t stride = ladder.stride();
  const std::uint64_t edge_elements = step.edge_bytes / stride;
  nlohmann::json scan = level.sets ? level.sets->evidence : nlohmann::json::object();
  scan["ladder_stride_bytes"] = stride;

  Property reach = make_property("reach", "bytes",
                                 ladder_method(ladder) +
                                     "; reach = entries x page (from the scan "
                                     "of sets), else elements x min(stride, page)");
  reach.evidence = refined_evidence(step);
  reach.evidence["elements"] = edge_elements;
  reach.evidence["page_bytes"] = level.page.bytes;
  reach.evidence["page_bound"] = to_string(level.page.bound);
  reach.evidence["sets_scan"] = scan;
  reach.evidence["staircase"] = staircase_evidence(ladder.staircase, *ladder.sweep);
  reach.evidence["staircase"]["grid"] = ladder.grid;
  if (level.sets && level.sets->read()) {
    reach.value = level.sets->entries() * level.page.bytes;
    Confidence c = sets_confidence(step, *level.sets);
    c *= inherited(page_confidence(level.page)->value(), element + ".page");
    set_confidence(reach, c);
  } else if (level.sets) {
    set_bound(reach, (level.sets->first_miss_elements - 1) * level.page.bytes, Bound::lower,
              "lower bound: the chain one shorter than the first miss fitted, and " +
                  unread(*level.sets));
  } else if (!level.page.unknown.empty()) {
    // Each element an entry of its own (a page up to the stride) or sharing one (a larger
    // page): the reach is at most the footprint that fitted.
    set_bound(reach, edge_elements * stride, Bound::upper,
              "upper bound: the page is not known (" + level.page.unknown + ")");
  } else if (level.page.bound == Bound::upper) {
    set_bound(
        reach, edge_elements * level.page.bytes, Bound::upper,
        "upper bound: the page is at most " + format_bytes(static_cast<double>(level.page.bytes)));
  } else {
    // A page of at least the stride: every element its own entry or sharing one, the reach is
    // the footprint that fitted either way.
    // A page below the stride sets the reach: it is as sure as the page too.
    reach.value = edge_elements * std::min(stride, level.page.bytes);
    Confidence c = refined_step_confidence(step);
    if (level.page.bytes < stride) {
      c *= inherited(page_confidence(level.page)->value(), element + ".page");
    }
    set_confidence(reach, c);
  }
  tlb.set(std::move(reach));
  report_geometry(tlb, level, step, scan);
  if (!level.sets && !level.page.unknown.empty()) {
    // One entry per element at most (each its own page, or sharing one).
    Property entries = *tlb.find("entries");
    set_bound(entries, edge_elements, Bound::upper, "upper bound: " + level.why_no_sets);
    tlb.set(std::move(entries));
  }
  if (!level.sets && level.page.bound == Bound::lower) {
    // Elements share entries: at most one entry per page of at least the bound.
    Property entries = *tlb.find("entries");
    set_bound(entries, edge_elements * stride / level.page.bytes, Bound::upper,
              "upper bound: " + level.why_no_sets);
    tlb.set(std::move(entries));
  }
  tlb.set(page_property(level.page));
  tlb.set(miss_penalty(level));
}

std::uint64_t unseen_reach_bound(const std::vector<ClimbedLadder>& climbed, std::uint64_t page) {
  std::uint64_t bound = 0;
  for (const ClimbedLadder& ladder : climbed) {
    bound = std::max(bound, ladder.elements * std::min(page, ladder.stride));
  }
  return bound;
}

void report_level_not_seen(Topology& topology, const std::string& element, const Ladder& first,
                           const UnseenLevel& unseen) {
  Property reach = make_property("reach", "bytes", ladder_method(first));
  const std::uint64_t bound = unseen_reach_bound(unseen.climbed, unseen.smallest_page);
  const std::uint64_t any_page = unseen_reach_bound(unseen.climbed, kSmallestPageBytes);
  std::string ladders;
  nlohmann::json climbed = nlohmann::json::array();
  for (const ClimbedLadder& ladder : unseen.climbed) {
    ladders += (ladders.empty() ? "" : ", ") + std::to_string(ladder.elements) + " x " +
               format_bytes(static_cast<double>(ladder.stride));
    climbed.push_back({{"stride_bytes", ladder.stride}, {"elements", ladder.elements}});
  }
  set_bound(reach, bound, Bound::lower,
            (unseen.rejected_steps > 0
                 ? std::to_string(unseen.rejected_steps) +
                       " step(s) down, within the noise (confidence < " +
                       format_number(kMinTlbStepConfidence, 2) +
                       ") or not above the plateaus before were not taken as levels; "
                 : std::string()) +
                "not seen: no ladder (" + ladders + ") showed a step for this level, so it is " +
                "larger than that, or there is no such level; with a page of at least " +
                format_bytes(static_cast<double>(unseen.smallest_page)) + " (" +
                unseen.smallest_page_from + ") it reaches at least " +
                format_bytes(static_cast<double>(bound)) + ", with any page of 4 KiB or more " +
                format_bytes(static_cast<double>(any_page)) + "; " + unseen.limit);
  reach.evidence["lower_bound_bytes"] = bound;
  reach.evidence["assumes_page_at_least_bytes"] = unseen.smallest_page;
  reach.evidence["lower_bound_any_page_bytes"] = any_page;
  reach.evidence["ladders"] = climbed;
  reach.evidence["staircase"] = staircase_evidence(first.staircase, *first.sweep);
  reach.evidence["staircase"]["grid"] = first.grid;
  element_for(topology, element).set(std::move(reach));
}

}  // namespace memtopo::staircase
