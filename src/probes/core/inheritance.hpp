#pragma once
// No value surer than what it was planned from (docs/architecture.md, design rule 3; docs/method.md,
// "Confidence"). One rule, applied by the runner to every probe, not by each probe:
//
// While a probe runs, every finding of an earlier probe that it reads through core/findings'
// lookup is noted with its confidence. When the probe ends (however: done, skipped, failed,
// interrupted), every property it wrote or changed, in any element, that states a value and is
// surer than the least sure of those findings gets one more factor, `inherited`
// (analysis/confidence.hpp, inherited_cap), naming that finding: it caps the value's confidence
// at that finding's, min(own, least). A value without a confidence of its own (none today) gets
// that least one.
//
// Bounds have no confidence (inconclusive), yet a plan can rest on one:
// - read through bound_finding, for a plan that holds wherever the value lies on the bound's side
//   (the L2 geometry's stride of at least half an upper bound on the line): a bound is stated as
//   true (docs/architecture.md, design rule 2), so it caps nothing;
// - read through any_finding and used as the value (the TLB-miss patterns take a lower bound on
//   a level's entries as its entries and overflow it 16 times over): the plan guesses where the
//   value lies, so what it finds is at most even odds, kBoundReadAsValue.
//
// What caps nothing:
// - API facts: they have no confidence (the `inherited` rule's 1).
// - Inconclusive findings without a value: they tell a probe only to fall back on something else
//   (the API size, its own search), or to skip.
// - finding_exists: whether a probe left a finding, not what it says.
// - What the probe itself wrote earlier in the same run: its own intermediate results.
//
// A cap, not a product with the finding's confidence: a value planned from a finding shares that
// finding's evidence (the ways' chases are the size's footprints), so its doubt is not a second,
// independent one; a product would also compound along chains of plans (size -> sector -> line
// -> ways -> policy) until correct values read as near 0. The factor keeps the product of the
// factors equal to the confidence (docs/method.md). A probe therefore applies no `inherited` or
// `weakest_of` factor of its own for findings it read: the runner's says it once.
#include <map>
#include <optional>
#include <string>

#include "analysis/confidence.hpp"
#include "model/topology.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

// The cap of a value planned from a bound taken as the value: even odds, agreement's "nothing
// known either way" (analysis/confidence.hpp), below which the console marks a value low.
inline constexpr double kBoundReadAsValue = kLowConfidence;

// Notes the reads from the moment it is made, and caps what was written when asked.
class PlanInheritance {
 public:
  explicit PlanInheritance(Topology& topology);
  PlanInheritance(const PlanInheritance&) = delete;
  PlanInheritance& operator=(const PlanInheritance&) = delete;

  // Multiplies the `inherited` factor into every property written since construction (once;
  // later calls do nothing).
  void cap_what_was_written();

 private:
  // What tells one version of a finding from another (the evidence aside: a probe that only
  // adds to another's evidence has not written a value).
  struct Stamp {
    nlohmann::json value;
    std::optional<double> confidence;
    std::string method, note;
    Source source = Source::measured;
    bool inconclusive = false;
    Bound bound = Bound::none;
    bool operator==(const Stamp&) const = default;
  };
  static Stamp stamp_of(const Property& property);
  void on_read(std::string_view element, const Property& property, FindingRead how);

  Topology& topology_;
  std::map<std::string, Stamp> before_;  // "element.property" -> as it was
  std::map<std::string, double> read_;   // earlier findings read -> their confidence
  std::optional<FindingReadWatch> watch_;
};

// Runs `probe` under the rule: what it wrote is capped also when it throws (then rethrown).
void run_inheriting(Probe& probe, ProbeContext& ctx);

}  // namespace memtopo
