#pragma once
// Confidence: how sure a finding is, a number in [0, 1] computed from its evidence by the named
// rules below and by nothing else. docs/method.md ("Confidence") is the reader's version of
// this file; keep the two in step.
//
// A finding's confidence is the product of the factors its probe applies, one per kind of
// evidence (how many checks agreed, how much of the sample the value describes, how close a
// ratio came to the count it was rounded to ...). Each factor keeps its rule's name and its
// inputs, and probes write them into the finding's evidence as `confidence_factors`, so that a
// reader can see why a value is as sure as it is.
//
// How to read the result (the same words the console and the report use):
//   >= 0.9   every check agreed and there were enough of them;
//   0.5-0.9  the value is what the evidence supports, but some of it is thin or disagrees;
//   <  0.5   low: as likely wrong as right; the console marks it `~` with the reasons.
// A measurement without a conclusion is not a low confidence: it is `inconclusive`, with its
// value null or a bound.
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace memtopo {

// Values below this are low: reporters mark them, and the notes say why.
inline constexpr double kLowConfidence = 0.5;

// One factor of a confidence: the rule that computed it, its value in [0, 1], and the evidence
// it was computed from, in words ("256 of 256 sampled sets").
struct ConfidenceFactor {
  std::string rule;
  double value = 1;
  std::string inputs;
};

// A product of factors. Starts at 1 (nothing against the value yet); every factor can only
// lower it. NaN or out-of-range factors are a bug in the caller and throw std::invalid_argument.
class Confidence {
 public:
  Confidence() = default;
  Confidence(std::initializer_list<ConfidenceFactor> factors);

  Confidence& operator*=(const ConfidenceFactor& factor);
  Confidence& operator*=(const Confidence& other);  // all of `other`'s factors

  double value() const { return value_; }
  const std::vector<ConfidenceFactor>& factors() const { return factors_; }
  // The factor that lowers the value most (nullptr without factors): what a note names first.
  const ConfidenceFactor* weakest() const;
  // [{"rule": ..., "value": ..., "inputs": ...}, ...] for a finding's evidence.
  nlohmann::json evidence() const;
  // "agreement 0.67 (1 of 1 stride beyond the line); ..." for notes.
  std::string explain() const;

 private:
  double value_ = 1;
  std::vector<ConfidenceFactor> factors_;
};

// ---- The rules --------------------------------------------------------------------------------

// agreement: `agreeing` of `checks` independent checks agreed with the value (passes that
// repeated a pattern, sampled sets that behaved as the ways predict, directions of a pair).
// Laplace's rule of succession, (agreeing + 1) / (checks + 2): the probability that one more
// check would agree. So few checks give modest confidence however clean they are (1 of 1:
// 0.67, 8 of 8: 0.9, 256 of 256: 0.996), no checks give 0.5, and each disagreement costs.
ConfidenceFactor agreement(std::size_t agreeing, std::size_t checks, const std::string& what);

// share: the value describes this fraction of the evidence (the samples a latency's p50 stands
// for, the share of accesses in the near mode, the working set's lines that survived).
ConfidenceFactor share(double fraction, const std::string& what);

// share_within: the fraction of `samples` within +-`relative` of `center` (inclusive): how well
// one number describes samples that may fall into several levels. A latency p50 whose samples
// all lie within 10 % of it gets 1; one that sits between two modes gets what it describes.
ConfidenceFactor share_within(std::span<const double> samples, double center, double relative,
                              const std::string& what);

// integer_closeness: a count read off a ratio (partitions = 1 / near share), rounded to the
// nearest integer: 1 - 2 |raw - round(raw)|, so 1 on an integer, 0 half-way between two.
ConfidenceFactor integer_closeness(double raw, const std::string& what);

// octave_closeness: a size read off a ratio and rounded to the nearest power of two: 1 - 2 x
// (octaves between raw and that power), so 1 on the power, 0 half an octave away (x 1.41).
ConfidenceFactor octave_closeness(double raw, const std::string& what);

// contrast: an effect of `observed` where the hypothesis predicts `full` (the contrast between
// hits and misses an eviction test showed, against the largest one this chase can show):
// observed / full, clamped to [0, 1]. 0 when `full` is not positive.
ConfidenceFactor contrast(double observed, double full, const std::string& what);

// methods: `agreeing` of `methods` independent methods gave this value: agreeing / methods.
// One of two methods that disagree gets even odds; a value that only one of two methods could
// produce, while the other saw something it cannot explain, likewise.
ConfidenceFactor methods_agreeing(std::size_t agreeing, std::size_t methods,
                                  const std::string& what);

// inherited: a value planned from, or derived from, another finding is at most as sure as that
// finding: the factor is that finding's confidence (1 when it has none: an API fact).
ConfidenceFactor inherited(double confidence, const std::string& from);

// inherited, as the probe runner applies it to every value a probe wrote (core/inheritance.hpp):
// no value surer than the findings its plan read. `own` is what the value's own factors give,
// `least` the least confidence among those findings; the factor is min(1, least / own), so that
// the value's confidence becomes min(own, least): a cap, not a second doubt (a value planned
// from a finding shares that finding's evidence, as weakest_of's inputs share their chases).
ConfidenceFactor inherited_cap(double own, double least, const std::string& from);

// weakest_of: a value that needs several findings at once (a miss penalty from two latencies, a
// table from its rows) is as sure as the least sure of them: the factor is their minimum.
ConfidenceFactor weakest_of(std::span<const double> confidences, const std::string& what);

// edge: the confidence a size search or staircase computed for its edge or step (size_rule's
// edge_confidence, staircase's significance x contrast x sharpness): taken as it is.
ConfidenceFactor edge(double confidence, const std::string& what);

// mode_separation: two modes of one sample (near and far L2 partitions) told apart at a
// threshold, whose histogram there holds `valley_ratio` of the lower mode's peak density
// (analysis/valley_split's valley_ratio): 1 - valley_ratio, clamped to [0, 1]. Loads in the gap
// could belong to either mode, and a gap as dense as a peak is no gap: 1 for an empty gap, 0.98
// for an H200 DRAM chase's valley at 2 % of its peaks, 0.75 at the valley split's limit (0.25).
// A small mode has a low peak, so the same gap costs it more.
ConfidenceFactor mode_separation(double valley_ratio, const std::string& what);

// capacity_agreement: two independent measurements of one capacity (a cache's ways x sets x
// line against its measured size): 1 - 2 x (octaves between them), so 1 when they agree, 0.99
// for the few lines a size search under random replacement overshoots (0.4 %), 0.81 for a
// geometry of 256 KiB against a measured 240 KiB, 0 half an octave (x 1.41) apart. The same
// scale as octave_closeness: a size that is off by a share is as doubtful here as a line read
// off a ratio that far from its power of two.
ConfidenceFactor capacity_agreement(double accounted_bytes, double measured_bytes,
                                    const std::string& what);

}  // namespace memtopo
