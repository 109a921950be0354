#include "probes/hopper/icache_levels.hpp"

#include <cstdio>
#include <string>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/hopper/hopper_probe.hpp"

namespace memtopo {
namespace {

// The levels, numbered from the core outwards by the order their steps appear.
constexpr const char* kLevels[] = {"icache_l0", "icache_l1", "icache_l15"};

const char* kIcacheLevelsMethod =
    "instruction fetch: one warp runs the first n KiB of a 512 KiB straight-line kernel body "
    "(blocks of 62 independent FFMAs on 8 accumulators plus a compare and branch: 64 SASS "
    "instructions, 1 KiB) in a loop, 2 warm iterations then >= 8 timed (%clock64 per "
    "iteration), cycles per instruction per iteration, at the first SM of each partition of "
    "l2.partition_map (pinned by %smid; without a map, wherever the block runs) and in each "
    "code layout (a second copy of the body elsewhere in the kernel image), pooled; n at 4 "
    "steps per octave from 2 KiB, then 8 more points inside every transition; change points "
    "(PELT, a noise floor of 0.01 cycles per instruction) cut the series, segments of at least "
    "1/4 octave are levels and shorter ones a ramp between two; a level's size is the largest "
    "code that still ran at its speed (the ramp's onset), its confidence the KS significance "
    "across the transition times its contrast against 10 noise sigmas, times the agreement of "
    "the repetitions (each SM and layout analysed on its own) that show the step; a level whose "
    "plateau is not flat or whose step does not repeat is inconclusive";

// Every sample of the code sizes first..last, pooled.
std::vector<double> plateau_samples(const std::vector<std::vector<double>>& samples,
                                    std::size_t first, std::size_t last) {
  std::vector<double> pooled;
  for (std::size_t i = first; i <= last; ++i)
    pooled.insert(pooled.end(), samples[i].begin(), samples[i].end());
  return pooled;
}

std::string describe(const CodeFetchRepetition& r) {
  return (r.sm_id ? "SM " + std::to_string(*r.sm_id) : std::string("any SM")) + ", layout " +
         std::to_string(r.layout);
}

nlohmann::json repetitions_evidence(const std::vector<CodeFetchRepetition>& repetitions) {
  nlohmann::json out = nlohmann::json::array();
  for (const CodeFetchRepetition& r : repetitions) {
    out.push_back({{"pinned_sm", r.sm_id ? nlohmann::json(*r.sm_id) : nlohmann::json()},
                   {"layout", r.layout},
                   {"ran_on_sms", r.ran_on}});
  }
  return out;
}

nlohmann::json series_evidence(const CodeFetchSeries& series) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < series.sizes.size(); ++i) {
    out.push_back({{"code_bytes", series.sizes[i]},
                   {"cycles_per_instruction", series.levels.medians[i]}});
  }
  return out;
}

// Each repetition's cycles per instruction on the two plateaus of `t` (median of its samples)
// and their difference: how much of the transition depends on the SM and the layout.
nlohmann::json by_repetition(const CodeFetchTransition& t,
                             const std::vector<CodeFetchRepetition>& repetitions) {
  nlohmann::json out = nlohmann::json::array();
  for (const CodeFetchRepetition& r : repetitions) {
    const double before = median(plateau_samples(r.samples, t.plateau_first, t.plateau_last));
    const double after = median(plateau_samples(r.samples, t.slower_first, t.slower_last));
    out.push_back({{"sms", r.ran_on},
                   {"layout", r.layout},
                   {"cycles_per_instruction_before", before},
                   {"cycles_per_instruction_after", after},
                   {"miss_penalty", after - before}});
  }
  return out;
}

// The verdict's evidence: the plateau's flatness and each repetition's matching step.
nlohmann::json verdict_evidence(const LevelVerdict& verdict,
                                const std::vector<CodeFetchRepetition>& repetitions) {
  const PlateauFlatness& f = verdict.flatness;
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t i = 0; i < repetitions.size(); ++i) {
    const CodeFetchTransition* step = verdict.repeats[i];
    steps.push_back({{"repetition", describe(repetitions[i])},
                     {"size_bytes", step ? nlohmann::json(step->size_bytes) : nlohmann::json()},
                     {"confidence", step ? nlohmann::json(step->confidence) : nlohmann::json()}});
  }
  return {{"plateau", {{"cycles_per_instruction", f.level},
                       {"lowest", f.lowest},
                       {"highest", f.highest},
                       {"band", f.band},
                       {"flat", f.flat}}},
          {"repeated_in", steps}};
}

std::string format(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// Why a level is inconclusive: its plateau is not flat, its step did not repeat, or both.
std::string inconclusive_note(const LevelVerdict& verdict,
                              const std::vector<CodeFetchRepetition>& repetitions) {
  std::string note;
  const PlateauFlatness& f = verdict.flatness;
  if (!f.flat) {
    note = "the plateau in front of the step is not flat: " + format(f.lowest) + "-" +
           format(f.highest) + " cycles per instruction around " + format(f.level) +
           ", beyond +-" + format(f.band) + " (5 noise sigmas)";
  }
  if (verdict.repeated < repetitions.size()) {
    std::string missing;
    for (std::size_t i = 0; i < repetitions.size(); ++i) {
      if (!verdict.repeats[i]) missing += (missing.empty() ? "" : ", ") + describe(repetitions[i]);
    }
    note += (note.empty() ? "" : "; ") + std::string("the step showed in ") +
            std::to_string(verdict.repeated) + " of " + std::to_string(repetitions.size()) +
            " repetitions (SM x code layout), not in " + missing;
  }
  return note;
}

// A level that is not conclusive keeps its value, inconclusive, without a confidence.
void mark_inconclusive(Property& p, const std::string& note) {
  p.inconclusive = true;
  p.confidence.reset();
  p.evidence.erase("confidence_factors");
  p.note = note;
}

// A level's size in bytes, measured by this probe's method.
Property size_property(std::uint64_t bytes) {
  Property p;
  p.name = "size";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = kIcacheLevelsMethod;
  p.value = bytes;
  return p;
}

void write_lower_bound(Topology& topology, const CodeFetchSeries& series,
                       const std::vector<CodeFetchRepetition>& repetitions,
                       const CodeFetchLayout& layout) {
  Property p = size_property(layout.max_code_bytes);
  p.inconclusive = true;
  p.bound = Bound::lower;
  p.note = "no transition in cycles per instruction up to the largest code the kernel has";
  p.evidence = {{"series", series_evidence(series)},
                {"repetitions", repetitions_evidence(repetitions)},
                {"transitions_found", series.levels.transitions.size()},
                {"noise_sigma", series.levels.noise_sigma}};
  element_for(topology, kLevels[0]).set(std::move(p));
}

void write_level(Element& element, const CodeFetchSeries& series, const CodeFetchTransition& t,
                 const LevelVerdict& verdict,
                 const std::vector<CodeFetchRepetition>& repetitions) {
  Property size = size_property(t.size_bytes);
  size.evidence = {{"first_slower_bytes", t.first_slower_bytes},
                   {"ramp_end_bytes", t.ramp_end_bytes},
                   {"ramp_sizes", t.ramp_sizes},
                   {"cycles_per_instruction_before", t.cpi_before},
                   {"cycles_per_instruction_after", t.cpi_after},
                   {"ks_statistic", t.ks_statistic},
                   {"significance", t.significance},
                   {"contrast", t.contrast},
                   {"noise_sigma", series.levels.noise_sigma},
                   {"verdict", verdict_evidence(verdict, repetitions)},
                   {"repetitions", repetitions_evidence(repetitions)},
                   {"series", series_evidence(series)}};
  const ConfidenceFactor repeated =
      agreement(verdict.repeated, repetitions.size(),
                "repetitions (SM x code layout) that show the step within 1/4 octave");
  set_confidence(size, Confidence{edge(t.confidence, "the transition (significance x contrast)"),
                                  repeated});

  // What the level answers at (cycles per instruction while the code fits it), and what a
  // miss in it costs per instruction (the transition's height).
  const std::vector<double> pooled =
      plateau_samples(series.samples, t.plateau_first, t.plateau_last);
  Property cpi = measured_property("cycles_per_instruction", "cycles", kIcacheLevelsMethod, pooled);
  Property penalty;
  penalty.name = "miss_penalty";
  penalty.unit = "cycles";
  penalty.source = Source::derived;
  penalty.method =
      "cycles per instruction of the level behind minus this level's, across the "
      "transition (per instruction executed, not per fetch); spread over every sample "
      "behind minus every one in front (the medians alone agreed closer within a run than "
      "between runs)";
  penalty.value = t.cpi_after - t.cpi_before;
  penalty.spread = summarize(pairwise_differences(
      plateau_samples(series.samples, t.slower_first, t.slower_last), pooled));
  penalty.evidence["by_repetition"] = by_repetition(t, repetitions);
  set_confidence(penalty, Confidence{edge(t.confidence, "the transition"), repeated});
  if (!verdict.conclusive) {
    const std::string note = inconclusive_note(verdict, repetitions);
    mark_inconclusive(size, note);
    mark_inconclusive(cpi, "the level is inconclusive: " + note);
    mark_inconclusive(penalty, "the level is inconclusive: " + note);
  }
  element.set(std::move(size));
  element.set(std::move(cpi));
  element.set(std::move(penalty));
}

}  // namespace

void write_icache_levels(Topology& topology, const CodeFetchSeries& series,
                         const std::vector<CodeFetchRepetition>& repetitions,
                         const CodeFetchLayout& layout) {
  std::vector<const CodeFetchTransition*> accepted;
  for (const CodeFetchTransition& t : series.levels.transitions) {
    if (t.confidence >= kMinStepConfidence) accepted.push_back(&t);
  }
  if (accepted.empty()) {
    write_lower_bound(topology, series, repetitions, layout);
    return;
  }
  std::vector<CodeFetchLevels> analysed;
  for (const CodeFetchRepetition& r : repetitions) {
    analysed.push_back(analyze_code_fetch(series.sizes, r.samples));
  }
  for (std::size_t level = 0; level < accepted.size() && level < std::size(kLevels); ++level) {
    const LevelVerdict verdict =
        judge_level(series.levels, *accepted[level], analysed, kMinStepConfidence);
    write_level(element_for(topology, kLevels[level]), series, *accepted[level], verdict,
                repetitions);
  }
}

}  // namespace memtopo
