// Sets and set-index bits, from the ways' overfull set (paper 000, 4.3): the sets are what the
// ways' chases showed; an address bit selects the set when flipping it in one of W lines of a
// full set moves that line out (the W + 1 lines then no longer overflow the set). A hashed index
// moves lines on more bits than the sets need: then minimal eviction sets give the index as XOR
// functions (hashed_index.hpp), or the ways' eviction sets already did.
#include <bit>
#include <map>
#include <set>

#include "analysis/stats.hpp"
#include "probes/geometry/geometry_measurement.hpp"
#include "probes/geometry/hashed_index.hpp"

namespace memtopo {
namespace {

// One bit test per address bit from the line offset up to this many bits above the cache's
// line count.
constexpr unsigned kBitsAboveCapacity = 1;

// Sets and set bits come from the ways' chases (the bit tests chase the ways' set): nothing of
// their own against them, as sure as the ways, which the runner's `inherited` factor says
// (core/inheritance.hpp).
Confidence from_the_ways() {
  return Confidence{};
}

struct BitTests {
  std::vector<std::uint32_t> bits;  // the bit each chase flips
  std::vector<ChaseSpec> specs;
};

// W lines of the set plus one of them with a single bit flipped, for every bit that moves one
// of them to a line outside the set (within the footprint limit).
BitTests plan_bit_tests(const GeometryMeasurement& g, const std::vector<std::uint64_t>& group,
                        std::uint64_t cache_lines) {
  const unsigned line_shift = static_cast<unsigned>(std::countr_zero(g.line()));
  const unsigned top =
      line_shift + static_cast<unsigned>(std::bit_width(cache_lines)) + kBitsAboveCapacity;
  const std::set<std::uint64_t> members(group.begin(), group.end());
  const std::vector<std::uint64_t> base(group.begin(), group.end() - 1);  // W lines of one set
  BitTests tests;
  for (unsigned bit = line_shift; bit < top; ++bit) {
    const std::uint64_t flip = std::uint64_t{1} << (bit - line_shift);
    std::optional<std::uint64_t> moved;
    for (auto x : base) {
      if (!members.count(x ^ flip)) {
        moved = x ^ flip;
        break;
      }
    }
    if (!moved || (*moved + 1) * g.line() > g.limits().max_footprint_bytes) continue;
    std::vector<std::uint32_t> words;
    for (auto x : base) words.push_back(g.word_of_line(x));
    words.push_back(g.word_of_line(*moved));
    tests.bits.push_back(bit);
    tests.specs.push_back(g.explicit_chase(
        std::move(words), 1, static_cast<std::uint32_t>(base.size() + 1) * kGeometryPasses));
  }
  return tests;
}

// Where the set count alone says what the bits are: one set (none), unequal sets (modulo).
bool write_bits_known_from_the_sets(GeometryMeasurement& g, const Property& ways,
                                    std::uint64_t sets, const nlohmann::json& ev) {
  Property p;
  p.name = "set_bits";
  p.unit = "";
  p.source = Source::measured;
  p.evidence = ev;
  if (sets == 1) {
    p.value = nlohmann::json::array();
    p.method = "one set (fully associative): no address bit selects a set";
  } else if (!ways.value.is_number()) {  // unequal sets: modulo over a set count, no bits
    p.value = {{"modulo", sets}};
    p.method = "unequal sets found by modulo spacing: line number mod sets";
  } else {
    return false;
  }
  g.write(std::move(p), from_the_ways());
  return true;
}

// The index the ways' eviction sets found (their evidence), when the ways came from them.
std::optional<HashedIndex> index_of_the_ways(const Property& ways) {
  if (!ways.evidence.contains("eviction_sets")) return std::nullopt;
  const auto& e = ways.evidence.at("eviction_sets");
  HashedIndex x;
  x.mapping = e.at("mapping").get<std::string>();
  if (e.at("sets").is_number()) x.sets = e.at("sets").get<std::uint64_t>();
  x.complete = e.at("complete").get<bool>();
  x.checks = e.at("checks_total").get<std::size_t>();
  x.agreeing_checks = e.at("checks_agreeing").get<std::size_t>();
  x.why = e.value("why", std::string());
  if (e.contains("index_functions")) {
    for (const auto& bits : e.at("index_functions")) {
      std::uint64_t mask = 0;
      for (const auto& b : bits) mask |= std::uint64_t{1} << b.get<unsigned>();
      x.masks.push_back(mask);
    }
  }
  return x;
}

// Single-bit flips left the bits inconclusive, and the ways' overfull set was not evenly spaced:
// a hashed index. Minimal eviction sets give its XOR functions.
void set_bits_by_eviction_sets(GeometryMeasurement& g, const Property& ways, nlohmann::json ev) {
  EvictionSetSearch search =
      search_eviction_sets_sm(g, ways.evidence.at("cache_lines").get<std::uint64_t>());
  const HashedIndex index = infer_hashed_index(g, search);
  ev["eviction_sets"] = hashed_index_evidence(search, index);
  Confidence base = eviction_set_confidence(search.vote.agreeing, search.targets.size());
  const bool same = search.vote.ways && ways.value == nlohmann::json(*search.vote.ways);
  base *= methods_agreeing(same ? 2 : 1, 2,
                           "ways (overfull set " + ways.value.dump() + ", eviction sets " +
                               (search.vote.ways ? std::to_string(*search.vote.ways) : "none") +
                               ") agreeing");
  write_set_bits_from_index(g, index, base, std::move(ev));
}

}  // namespace

void write_sets_from_ways(GeometryMeasurement& g) {
  const Property& w = g.plan_from_ways();
  Property p;
  p.name = "sets";
  p.unit = "";
  p.source = Source::measured;
  p.method = "from the " + g.element() +
             ".ways chases: the spacing of the lines of one "
             "overfull set (modulo), else cache lines / ways";
  p.value = w.evidence.at("sets");
  p.evidence = {{"from", g.element() + ".ways"},
                {"set_mapping", w.evidence.at("set_mapping")},
                {"cache_lines", w.evidence.at("cache_lines")},
                {"ways", w.value}};
  if (p.value.is_null()) {  // eviction sets whose mapping does not account for the capacity
    p.inconclusive = true;
    p.note = "the ways' eviction sets revealed no mapping that accounts for the capacity";
    g.store(std::move(p));
    return;
  }
  if (const auto contradiction = capacity_contradiction(w)) {
    p.evidence["sets_from_the_chases"] = p.value;  // kept for the reader
    p.evidence["capacity_check"] = w.evidence.at("capacity_check");
    p.value = nullptr;
    p.inconclusive = true;
    p.note = *contradiction;
    g.store(std::move(p));
    return;
  }
  g.write(std::move(p), from_the_ways());
}

void measure_set_bits(GeometryMeasurement& g) {
  const Property& w = g.plan_from_ways();
  if (const auto index = index_of_the_ways(w)) {
    nlohmann::json ev = {{"from", g.element() + ".ways"},
                         {"sets", w.evidence.at("sets")},
                         {"eviction_sets", w.evidence.at("eviction_sets")}};
    write_set_bits_from_index(g, *index, from_the_ways(), std::move(ev));
    return;
  }
  const auto sets = w.evidence.at("sets").get<std::uint64_t>();
  nlohmann::json ev = {{"from", g.element() + ".ways"}, {"sets", sets}};
  if (write_bits_known_from_the_sets(g, w, sets, ev)) return;
  const auto group = w.evidence.at("overflow_lines").get<std::vector<std::uint64_t>>();
  const BitTests plan = plan_bit_tests(g, group, w.evidence.at("cache_lines").get<std::uint64_t>());
  const auto traces = g.run(plan.specs, "bits");
  std::map<std::uint32_t, bool> overflowed;
  nlohmann::json tests = nlohmann::json::array();
  for (std::size_t i = 0; i < traces.size(); ++i) {
    // The set overflows when its lines collect a slow access per pass at least.
    const auto slow = count_above(corrected_cycles(traces[i]), g.threshold());
    overflowed[plan.bits[i]] = slow >= kGeometryPasses;
    tests.push_back(
        {{"bit", plan.bits[i]}, {"slow_accesses", slow}, {"overflowed", slow >= kGeometryPasses}});
  }
  const auto index_bits = index_bits_from_tests(overflowed);
  ev["bit_tests"] = std::move(tests);
  ev["index_bits"] = index_bits;
  ev["loads"] = g.loads();
  ev["batches"] = g.batches();
  const bool power_of_two = std::has_single_bit(sets);
  Property p;
  p.name = "set_bits";
  p.unit = "";
  p.source = Source::measured;
  p.method =
      "W lines of one full set plus one line with a single address bit flipped: the set "
      "overflows unless the bit selects the set (paper 000, 4.3)";
  if (power_of_two && index_bits.size() == static_cast<std::size_t>(std::countr_zero(sets))) {
    p.value = index_bits;
    const auto line_shift = static_cast<std::uint32_t>(std::countr_zero(g.line()));
    bool contiguous = index_bits.front() == line_shift;
    for (std::size_t i = 1; i < index_bits.size(); ++i)
      contiguous = contiguous && index_bits[i] == index_bits[i - 1] + 1;
    ev["equivalent_to_modulo"] = contiguous;
  } else if (!power_of_two && w.evidence.at("set_mapping") == "modulo") {
    p.value = {{"modulo", sets}};
    p.method +=
        "; the set count is not a power of two and every bit moves lines: line number "
        "mod sets";
  } else {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = std::to_string(index_bits.size()) + " bits move lines to another set, but " +
             std::to_string(sets) + " sets need " +
             (power_of_two ? std::to_string(std::countr_zero(sets)) : std::string("a non-bit")) +
             " selection";
  }
  if (p.inconclusive && w.evidence.at("set_mapping").get<std::string>().starts_with("not modulo")) {
    set_bits_by_eviction_sets(g, w, std::move(ev));
    return;
  }
  p.evidence = std::move(ev);
  if (p.inconclusive) {
    g.store(std::move(p));
  } else {
    g.write(std::move(p), from_the_ways());
  }
}

}  // namespace memtopo
