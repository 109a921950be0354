// <element>.line of an SM-local cache: plan the stride ladders, classify every stride, search the
// capacity at the first strides that held their probe footprint, infer the line on both paths
// and conclude.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/linesize.hpp"
#include "probes/core/findings.hpp"
#include "probes/line/capacity_searches.hpp"
#include "probes/line/line_constants.hpp"
#include "probes/line/line_evidence.hpp"
#include "probes/line/line_measurement.hpp"
#include "probes/line/pair_line_path.hpp"
#include "probes/line/stride_ladders.hpp"

namespace memtopo {
namespace {

std::string bytes(std::uint64_t value) {
  return std::to_string(value) + " B";
}

// A path's own confidence times the edge of its size searches (the weakest, for the prime path).
Confidence with_edge(const Confidence& path, const std::vector<CapacitySearch>& searches,
                     bool power_of_two) {
  Confidence out = path;
  // A path with a line has found the capacity at its first stride beyond it: an edge.
  if (const auto weakest = weakest_edge(searches, power_of_two)) {
    out *= edge(*weakest, power_of_two ? "capacity search at the power-of-two stride"
                                       : "weaker of the capacity searches at the prime strides");
  }
  return out;
}

void add_note(Property& p, const std::string& remark) {
  p.note += (p.note.empty() ? "" : "; ") + remark;
}

// The prime path answered: its value stands; the power-of-two path agrees, disagrees (then even
// odds between them) or says nothing (expected under a modulo index over an even set count,
// which the prime path assumes: no second method to count).
void conclude_from_prime(Property& p, const LinePaths& paths, Confidence confidence) {
  const std::uint64_t line = *paths.prime.line_bytes;
  p.value = line;
  p.note = paths.prime.note;
  if (const auto other = paths.power_of_two.line_bytes) {
    const bool same = *other == line;
    confidence *= methods_agreeing(
        same ? 2 : 1, 2,
        "paths (prime strides " + bytes(line) + ", power-of-two " + bytes(*other) + ") agreeing");
    if (!same) add_note(p, "the power-of-two path says " + bytes(*other));
  }
  p.evidence["path"] = "prime";
  set_confidence(p, confidence);
}

// Only the power-of-two path answered (hashed set index, or the prime dividing the sets): one
// method answers while the other saw a mapping it cannot explain (on an H100 the same unified
// cache gave 128 B via ca and 512 B via tex this way).
void conclude_from_power_of_two(Property& p, const LinePaths& paths, Confidence confidence) {
  const std::uint64_t line = *paths.power_of_two.line_bytes;
  p.value = line;
  confidence *= methods_agreeing(1, 2, "paths answering (the prime strides did not)");
  p.note = "from the power-of-two strides (" + paths.power_of_two.note +
           "); the prime strides: " + paths.prime.note;
  p.evidence["path"] = "power_of_two";
  p.evidence["sectored"] = paths.plan.sector_bytes && line > *paths.plan.sector_bytes;
  set_confidence(p, confidence);
}

// The prime strides found no line and the pair path did (a hashed set index: random blocks
// spread over its sets where strides do not). The pairs test line membership directly: words d
// apart that missed as two lines cannot share one, words that hit as one line do. So a
// power-of-two line that differs is refuted by the pairs' own verdicts (it is an inference from
// capacities that assumes evenly spread sets), and does not halve the confidence as a second
// method would; one that agrees counts as a second method agreeing.
void conclude_from_pairs(Property& p, const LinePaths& paths, const PairLinePath& pairs) {
  const std::uint64_t line = *pairs.inference.line_bytes;
  p.value = line;
  Confidence confidence = pairs.inference.confidence;
  p.note = "from pairs of words in random blocks (" + paths.prime.note + ")";
  if (!pairs.inference.note.empty()) add_note(p, pairs.inference.note);
  if (const auto other = paths.power_of_two.line_bytes) {
    if (*other == line) {
      confidence *=
          methods_agreeing(2, 2, "paths (pairs, power-of-two) agreeing on " + bytes(line));
    } else {
      p.evidence["power_of_two_refuted_by_pairs"] = *other;
      add_note(p, "the power-of-two strides say " + bytes(*other) + ", which the pairs refute (" +
                      (*other > line ? "words " + bytes(line) + " apart took two lines"
                                     : "words " + bytes(*other) + " apart shared one") +
                      "): their capacities assume sets evenly spread at power-of-two strides, "
                      "which a hashed index does not give");
    }
  }
  p.evidence["path"] = "pairs";
  p.evidence["sectored"] = paths.plan.sector_bytes && line > *paths.plan.sector_bytes;
  set_confidence(p, confidence);
}

// A prime ladder that ended without a stride holding the prime times the size: the prime may
// divide the set count (every stride p x unit then reaches a p-th of the sets).
bool prime_held_nothing(const LineInference& inference) {
  return !inference.line_bytes && inference.first_beyond_stride == 0;
}

// The prime path: the ladder of kLinePrime, then, when the power-of-two path has no line either
// (`line_known`: it has one), of the next of kLinePrimes while the last held nothing. Where the
// power-of-two strides answer (an odd set count, 7 x 2^k among them) the line is known, and a
// further ladder would add chases (on an unequal-set cache, whose later chases depend on where
// the backend places their arrays) for a second method only. `plan` and `searches` end with the
// last prime's ladder and searches (the power-of-two ones kept); `tried` lists the primes before
// it with what they showed.
LineInference infer_line_over_primes(LineMeasurement& m, LinePlan& plan,
                                     std::vector<CapacitySearch>& searches, bool line_known,
                                     nlohmann::json& tried) {
  const std::uint64_t sector = plan.sector_bytes.value_or(0);
  LineInference inference = infer_line(plan.size_bytes, sector, kLinePrime, plan.prime.strides);
  if (line_known) return inference;
  for (std::size_t k = 1; k < kLinePrimes.size() && prime_held_nothing(inference); ++k) {
    std::optional<LinePlan> next = with_prime(m, plan, kLinePrimes[k]);
    if (!next) break;
    tried.push_back({{"prime", plan.prime_number},
                     {"note", inference.note},
                     {"capacity_per_stride", prime_strides_evidence(plan, searches, inference)}});
    classify_prime_strides(m, *next);
    std::erase_if(searches, [](const CapacitySearch& s) { return !s.power_of_two; });
    for (auto& s : search_capacities(m, *next)) searches.push_back(s);
    plan.prime_number = next->prime_number;
    plan.prime = std::move(next->prime);
    inference = infer_line(plan.size_bytes, sector, plan.prime_number, plan.prime.strides);
  }
  return inference;
}

void conclude_inconclusive(Property& p, const LinePaths& paths) {
  p.value = nullptr;
  p.inconclusive = true;
  p.note = paths.prime.note + "; power-of-two strides: " + paths.power_of_two.note;
  if (paths.prime.lower_bound) p.evidence["lower_bound_bytes"] = *paths.prime.lower_bound;
}

}  // namespace

void measure_line(LineMeasurement& m) {
  const std::uint64_t size = m.size_or_skip();
  LinePlan plan = plan_stride_ladders(m, size, m.measured_sector());
  classify_strides(m, plan);
  std::vector<CapacitySearch> searches = search_capacities(m, plan);
  nlohmann::json primes_tried = nlohmann::json::array();
  const PowerOfTwoLine pow2 = infer_line_from_power_of_two_strides(size, plan.power_of_two.strides);
  const LineInference prime =
      infer_line_over_primes(m, plan, searches, pow2.line_bytes.has_value(), primes_tried);
  std::optional<Confidence> pow2_confidence;
  if (pow2.line_bytes) pow2_confidence = with_edge(pow2.confidence, searches, true);
  const LinePaths paths{plan, searches, prime, pow2,
                        pow2_confidence ? std::optional(pow2_confidence->value()) : std::nullopt};

  Property p;
  p.name = "line";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = line_method(m, plan);
  p.evidence = line_evidence(m, paths);
  const bool later_prime = !primes_tried.empty();
  if (later_prime) p.evidence["primes_tried"] = std::move(primes_tried);
  if (prime.line_bytes) {
    conclude_from_prime(p, paths, with_edge(prime.confidence, searches, false));
    if (later_prime) {
      add_note(p, "from the strides " + std::to_string(plan.prime_number) +
                      " x unit: no stride of a smaller prime held that prime times the size (it "
                      "divides the set count)");
    }
    m.publish(std::move(p));
    return;
  }
  // The prime strides found no line: ask the pairs, which no set index misleads.
  const PairLinePath pairs = measure_line_by_pairs(m, size, plan.unit_bytes);
  p.evidence["pairs"] = pairs.evidence;
  p.evidence["pairs"]["note"] = pairs.inference.note;
  p.method += "; third path, when the prime strides find no line: " + pair_path_method();
  if (pairs.inference.line_bytes) {
    conclude_from_pairs(p, paths, pairs);
  } else if (pow2.line_bytes) {
    conclude_from_power_of_two(p, paths, *pow2_confidence);
    add_note(p, "pairs: " + pairs.inference.note);
  } else {
    conclude_inconclusive(p, paths);
    add_note(p, "pairs: " + pairs.inference.note);
  }
  m.publish(std::move(p));
}

}  // namespace memtopo
