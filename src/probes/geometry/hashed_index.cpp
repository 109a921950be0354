// The set index from minimal eviction sets (hashed_index.hpp): lines that share a set are
// congruent modulo the set count (modulo index) or differ by a vector of the kernel of the XOR
// functions (hashed index); the functions are the kernel's annihilator. Each mapping predicts,
// for lines it has not seen, whether they share a target's set; chases check the predictions.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "analysis/xor_index.hpp"
#include "probes/geometry/hashed_index.hpp"

namespace memtopo {
namespace {

// The ways need this many targets agreeing, and more than half of all targets.
constexpr std::size_t kMinAgreeingTargets = 2;
// Lines of each minimal set listed in the evidence.
constexpr std::size_t kListedSetLines = 32;

bool accounts_for(std::uint64_t sets, std::uint64_t ways, std::uint64_t lines) {
  const double product = static_cast<double>(sets) * static_cast<double>(ways);
  return std::abs(product - static_cast<double>(lines)) <=
         kCapacityTolerance * static_cast<double>(lines);
}

std::uint64_t gcd_of_differences(const std::vector<std::vector<std::uint64_t>>& groups) {
  std::uint64_t g = 0;
  for (const auto& group : groups) {
    for (std::uint64_t x : group) {
      g = std::gcd(g, x > group.front() ? x - group.front() : group.front() - x);
    }
  }
  return g;
}

// One prediction: whether `probe` shares the set of full set `group`'s target.
struct Prediction {
  std::uint64_t probe = 0;
  std::size_t group = 0;
  bool same_set = false;
  const char* kind = "";
};

bool predicts_same_set(const HashedIndex& x, std::uint64_t a, std::uint64_t b, unsigned shift) {
  if (x.mapping == "modulo") return a % *x.sets == b % *x.sets;
  for (std::uint64_t m : x.masks) {
    if (xor_parity(m, (a ^ b) << shift)) return false;
  }
  return true;
}

// Single-bit flips of the first target (every bit the index may use), and for a hashed index
// each kernel basis vector applied to a target in turn: lines the reductions did not chase with
// that set.
std::vector<Prediction> plan_predictions(const GeometryMeasurement& g, const HashedIndex& x,
                                         const std::vector<std::vector<std::uint64_t>>& full,
                                         const std::vector<std::uint64_t>& kernel_basis) {
  const auto shift = static_cast<unsigned>(std::countr_zero(g.line()));
  std::uint64_t top_line = 0;
  for (const auto& group : full)
    top_line = std::max(top_line, *std::max_element(group.begin(), group.end()));
  const auto bits = static_cast<unsigned>(std::min<int>(
      std::bit_width(top_line), static_cast<int>(kArrayAlignmentBits) - static_cast<int>(shift)));
  std::vector<Prediction> out;
  for (unsigned b = 0; b < bits; ++b) {
    const std::uint64_t probe = full[0][0] ^ (std::uint64_t{1} << b);
    out.push_back({probe, 0, predicts_same_set(x, probe, full[0][0], shift), "bit flip"});
  }
  for (std::size_t k = 0; k < kernel_basis.size(); ++k) {
    const std::size_t group = k % full.size();
    const std::uint64_t probe = full[group][0] ^ (kernel_basis[k] >> shift);
    out.push_back({probe, group, true, "kernel vector"});
  }
  // A probe that is a member of its set, or beyond what the backend can chase, tells nothing.
  std::erase_if(out, [&](const Prediction& p) {
    const auto& members = full[p.group];
    return std::find(members.begin(), members.end(), p.probe) != members.end() ||
           (p.probe + 1) * g.line() > g.limits().max_footprint_bytes;
  });
  return out;
}

// Chases each probe with its set's W lines (not its target): the probe misses iff it shares
// their set.
void check_predictions(GeometryMeasurement& g, EvictionSetSearch& s, HashedIndex& x,
                       const std::vector<std::vector<std::uint64_t>>& full,
                       const std::vector<Prediction>& predictions) {
  std::vector<ChaseSpec> specs;
  std::vector<std::vector<std::uint64_t>> chases;
  for (const auto& p : predictions) {
    std::vector<std::uint64_t> lines = {p.probe};
    lines.insert(lines.end(), full[p.group].begin() + 1, full[p.group].end());
    std::vector<std::uint32_t> words;
    for (std::uint64_t line : lines) words.push_back(g.word_of_line(line));
    specs.push_back(
        g.explicit_chase(std::move(words), 1, static_cast<std::uint32_t>(lines.size()) * s.passes));
    chases.push_back(std::move(lines));
  }
  const std::uint64_t loads = g.loads(), batches = g.batches(), critical = g.critical_path_loads();
  const auto traces = g.run(specs, "index_checks");
  s.loads += g.loads() - loads;
  s.batches += g.batches() - batches;
  s.critical_path_loads += g.critical_path_loads() - critical;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const bool observed = g.counts(traces[i]).missed(predictions[i].probe, s.min_slow);
    ++x.checks;
    if (observed == predictions[i].same_set) ++x.agreeing_checks;
    x.check_evidence.push_back({{"kind", predictions[i].kind},
                                {"line", predictions[i].probe},
                                {"target", full[predictions[i].group][0]},
                                {"predicted_same_set", predictions[i].same_set},
                                {"observed_same_set", observed}});
  }
}

nlohmann::json target_evidence(const EvictionTarget& t) {
  const std::size_t shown = std::min(t.set.size(), kListedSetLines);
  nlohmann::json e = {
      {"line", t.line},
      {"pool_lines", t.pool_lines},
      {"minimal", t.minimal},
      {"set_size", t.set.size()},
      {"set_lines", std::vector<std::uint64_t>(t.set.begin(), t.set.begin() + shown)},
      {"tests", t.tests},
      {"rounds", t.rounds}};
  if (!t.why.empty()) e["why"] = t.why;
  return e;
}

bool ways_conclusive(const EvictionSetSearch& s) {
  return s.vote.ways && s.vote.agreeing >= kMinAgreeingTargets &&
         2 * s.vote.agreeing > s.targets.size();
}

std::string mapping_words(const HashedIndex& x) {
  if (x.mapping == "modulo") return "modulo";
  if (x.mapping == "xor") return "hashed: XOR of address bits";
  return "unknown (neither modulo nor XOR functions of the address bits below 2 MiB)";
}

}  // namespace

HashedIndex infer_hashed_index(GeometryMeasurement& g, EvictionSetSearch& s) {
  HashedIndex x;
  x.mapping = "unknown";
  const auto full = s.full_sets();
  if (full.empty()) {
    x.why = "no target gave a minimal eviction set of the agreed size";
    return x;
  }
  const std::uint64_t ways = *s.vote.ways, lines = s.cache_lines;
  const auto shift = static_cast<unsigned>(std::countr_zero(g.line()));
  std::vector<std::uint64_t> kernel;
  if (const std::uint64_t spacing = gcd_of_differences(full);
      spacing > 0 && accounts_for(spacing, ways, lines)) {
    x.mapping = "modulo";
    x.sets = spacing;
  } else {
    std::uint64_t top_line = 0;
    for (const auto& group : full)
      top_line = std::max(top_line, *std::max_element(group.begin(), group.end()));
    const unsigned top = std::min<unsigned>(
        kArrayAlignmentBits, shift + static_cast<unsigned>(std::bit_width(top_line)));
    x.coordinates = ((std::uint64_t{1} << top) - 1) & ~((std::uint64_t{1} << shift) - 1);
    for (const auto& group : full) {
      std::vector<std::uint64_t> addresses;
      for (std::uint64_t line : group) addresses.push_back(line << shift);
      for (std::uint64_t v : kernel_vectors(addresses, x.coordinates)) kernel.push_back(v);
    }
    x.masks = annihilator(kernel, x.coordinates);
    if (x.masks.size() < 64) x.sets = std::uint64_t{1} << x.masks.size();
    x.mapping = "xor";
  }
  x.complete = x.sets && accounts_for(*x.sets, ways, lines);
  if (!x.complete) {
    x.why = x.mapping == "xor"
                ? std::to_string(x.masks.size()) + " XOR functions of the address bits below " +
                      std::to_string(kArrayAlignmentBits) + " select " +
                      std::to_string(x.sets.value_or(0)) + " sets, but " + std::to_string(ways) +
                      " ways need " + std::to_string(lines / ways) + " for the " +
                      std::to_string(lines) + " lines"
                : "the sets do not account for the capacity";
  }
  check_predictions(g, s, x, full, plan_predictions(g, x, full, reduced_basis(kernel)));
  return x;
}

nlohmann::json hashed_index_evidence(const EvictionSetSearch& s, const HashedIndex& x) {
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& t : s.targets) targets.push_back(target_evidence(t));
  nlohmann::json ev = {
      {"method", "minimal eviction sets by group testing (Vila et al., S&P 2019)"},
      {"cache_lines", s.cache_lines},
      {"deterministic", s.deterministic},
      {"passes", s.passes},
      {"min_slow", s.min_slow},
      {"targets", std::move(targets)},
      {"ways_vote",
       {{"ways", s.vote.ways ? nlohmann::json(*s.vote.ways) : nlohmann::json(nullptr)},
        {"agreeing", s.vote.agreeing},
        {"targets", s.targets.size()}}},
      {"mapping", x.mapping},
      {"sets", x.sets ? nlohmann::json(*x.sets) : nlohmann::json(nullptr)},
      {"complete", x.complete},
      {"checks", x.check_evidence},
      {"checks_agreeing", x.agreeing_checks},
      {"checks_total", x.checks},
      {"cost",
       {{"batches", s.batches},
        {"loads", s.loads},
        {"critical_path_loads", s.critical_path_loads}}}};
  if (x.mapping == "xor") {
    ev["index_functions"] = mask_bits(x.masks);
    const auto bits = mask_bits(std::vector<std::uint64_t>{x.coordinates});
    ev["bits_considered"] = bits.front();
  }
  if (!x.why.empty()) ev["why"] = x.why;
  return ev;
}

Confidence eviction_set_confidence(std::size_t agreeing_targets, std::size_t targets) {
  return {agreement(agreeing_targets, targets,
                    "target lines whose minimal eviction set had the ways' size")};
}

bool write_ways_from_eviction_sets(GeometryMeasurement& g, const EvictionSetSearch& s,
                                   const HashedIndex& x, nlohmann::json ev) {
  ev["eviction_sets"] = hashed_index_evidence(s, x);
  ev.update(g.common_evidence());
  if (!ways_conclusive(s)) {
    g.write_inconclusive(
        "ways",
        "the overfull-set chases failed (" + ev.value("overfull_set_note", std::string()) +
            "), and the eviction sets disagree: " + std::to_string(s.vote.agreeing) + " of " +
            std::to_string(s.targets.size()) + " target lines had minimal sets of one size",
        ev);
    return false;
  }
  const auto full = s.full_sets();
  std::vector<std::uint64_t> set_lines = full.front();
  std::sort(set_lines.begin(), set_lines.end());
  ev["cache_lines"] = s.cache_lines;
  ev["overflow_lines"] = set_lines;  // one full set: W + 1 lines (the policy probe chases them)
  ev["overflow_deterministic"] = s.deterministic;
  ev["sets"] = x.sets ? nlohmann::json(*x.sets) : nlohmann::json(nullptr);
  ev["set_mapping"] = mapping_words(x);
  Property p;
  p.name = "ways";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "minimal eviction sets by group testing (Vila et al., S&P 2019): for several target lines "
      "a pool chase over more than the cache, reduced to the fewest lines that still evict the "
      "target; their size is the ways";
  p.value = *s.vote.ways;
  p.evidence = std::move(ev);
  write_ways(g, std::move(p), eviction_set_confidence(s.vote.agreeing, s.targets.size()));
  return true;
}

void write_set_bits_from_index(GeometryMeasurement& g, const HashedIndex& x, Confidence base,
                               nlohmann::json ev) {
  Property p;
  p.name = "set_bits";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "lines that share a set, from minimal eviction sets: congruent modulo the sets, or XOR "
      "functions of address bits (the annihilator of their differences), checked by chasing "
      "lines the functions place in or out of a set";
  const auto shift = static_cast<std::uint32_t>(std::countr_zero(g.line()));
  const bool single_bits = std::all_of(x.masks.begin(), x.masks.end(),
                                       [](std::uint64_t m) { return std::has_single_bit(m); });
  if (!x.complete) {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = x.why;
  } else if (x.mapping == "modulo" && *x.sets == 1) {
    p.value = nlohmann::json::array();
  } else if (x.mapping == "modulo" && !std::has_single_bit(*x.sets)) {
    p.value = {{"modulo", *x.sets}};
  } else if (x.mapping == "modulo") {
    std::vector<std::uint32_t> bits;
    for (int b = 0; b < std::countr_zero(*x.sets); ++b) bits.push_back(shift + b);
    p.value = bits;
  } else if (single_bits) {
    std::vector<std::uint32_t> bits;
    for (std::uint64_t m : x.masks) bits.push_back(static_cast<std::uint32_t>(std::countr_zero(m)));
    p.value = bits;
  } else {
    p.value = {{"xor", mask_bits(x.masks)}};
  }
  p.evidence = std::move(ev);
  if (p.inconclusive) {
    g.store(std::move(p));
    return;
  }
  base *= agreement(x.agreeing_checks, x.checks,
                    "predictions of the index (lines in or out of a target's set) that chases "
                    "confirmed");
  g.write(std::move(p), base);
}

}  // namespace memtopo
