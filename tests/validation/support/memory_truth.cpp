// Ground truth of DRAM, the TLB levels and shared memory, in the form their probes report them.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "support/ground_truth.hpp"

namespace memtopo::validation {
namespace {

using nlohmann::json;

// The ways finding a TLB level gives: its entries for a fully associative level (one set), the
// integer for equal sets, the per-set list largest first for unequal ones.
json tlb_ways(const json& tlb) {
  const json& ways = tlb.at("ways");
  if (ways.is_array()) {
    auto sorted = ways.get<std::vector<std::uint64_t>>();
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    if (sorted.front() == sorted.back()) return sorted.front();
    return sorted;
  }
  return ways.get<std::uint64_t>() == 0 ? tlb.at("entries") : ways;
}

std::uint64_t tlb_sets(const json& tlb) {
  const json& ways = tlb.at("ways");
  if (ways.is_array()) return ways.size();
  const auto w = ways.get<std::uint64_t>();
  return w == 0 ? 1 : tlb.at("entries").get<std::uint64_t>() / w;
}

// The most memory one chase may take on the simulated device (docs/sim-format.md, limits).
double chase_limit(const json& description) {
  return description.at("global_memory_bytes").get<double>() / 2;
}

std::string mib(double bytes) {
  return std::to_string(static_cast<int>(bytes / (1 << 20))) + " MiB";
}

std::vector<Fact> tlb_level_facts(const json& description, const json& tlb, std::size_t level) {
  const std::string element = "tlb_l" + std::to_string(level);
  const double entries = tlb.at("entries").get<double>();
  const double page = tlb.at("page_bytes").get<double>();
  std::vector<Fact> facts = {exact_fact(element, "reach", entries * page)};
  facts.back().number = entries * page;
  std::vector<Fact> rest = {exact_fact(element, "entries", tlb.at("entries")),
                            exact_fact(element, "page", tlb.at("page_bytes")),
                            exact_fact(element, "ways", tlb_ways(tlb)),
                            exact_fact(element, "sets", tlb_sets(tlb)),
                            latency_fact(element, "miss_penalty",
                                         tlb.at("miss_latency_extra").get<double>())};
  // A level beyond what one chase can take is never missed: only its reach can be bounded.
  const bool beyond = entries * page >= chase_limit(description);
  for (Fact& f : rest) {
    if (beyond) {
      f.reveal = Reveal::hidden;
      f.why = "the level's reach (" + mib(entries * page) + ") is beyond what one chase may take (" +
              mib(chase_limit(description)) + ")";
    }
    facts.push_back(std::move(f));
  }
  return facts;
}

std::vector<Fact> tlb_facts(const json& description) {
  const json tlbs = description.value("tlbs", json::array());
  std::vector<Fact> facts;
  for (std::size_t k = 0; k < tlbs.size(); ++k) {
    for (Fact& f : tlb_level_facts(description, tlbs[k], k + 1)) facts.push_back(std::move(f));
  }
  // The probe reports up to three levels; none past those described may be claimed.
  for (std::size_t k = tlbs.size(); k < 3; ++k) {
    facts.push_back(absent_fact("tlb_l" + std::to_string(k + 1), "reach",
                                "the device has " + std::to_string(tlbs.size()) + " TLB level(s)"));
  }
  return facts;
}

// dram.latency_patterns: every reachable row's cycles are the latency its labels (which cache
// answers, which TLB levels miss) imply: that level's hit latency (the near one for L2) plus
// the miss latency of every TLB level that misses.
Fact latency_patterns_fact(const json& description) {
  const json* l2 = l2_of(description);
  const auto l1 = sm_cache_on(description, "ca");
  const double dram = description.at("dram_latency").get<double>();
  json truth = {{"dram", dram}, {"tlb_miss_extras", json::array()}};
  if (l2) truth["l2"] = l2->at("hit_latency");
  if (l1) truth["l1"] = l1->at("hit_latency");
  for (const json& tlb : description.value("tlbs", json::array())) {
    truth["tlb_miss_extras"].push_back(tlb.at("miss_latency_extra"));
  }
  Fact fact = exact_fact("dram", "latency_patterns", truth);
  fact.tolerance = "each reachable row: its labels' latency, max(2 cy, 3 %)";
  fact.matches = [truth](const json& found) {
    if (!found.is_array()) return false;
    std::size_t reachable = 0;
    for (const json& row : found) {
      if (!row.value("reachable", false)) continue;
      ++reachable;
      const std::string data = row.at("data").get<std::string>();
      if (!truth.contains(data)) return false;
      double cycles = truth.at(data).get<double>();
      const json& labels = row.at("tlb");
      for (std::size_t k = 0; k < labels.size(); ++k) {
        if (labels[k] != "miss") continue;
        if (k >= truth.at("tlb_miss_extras").size()) return false;
        cycles += truth.at("tlb_miss_extras")[k].get<double>();
      }
      if (!row.at("cycles").is_number() || !latency_matches(row.at("cycles").get<double>(), cycles)) {
        return false;
      }
    }
    return reachable > 0;
  };
  return fact;
}

// dram.latency_tlb_miss is the DRAM latency with a miss at every TLB level found: a level whose
// reach lies past what one chase may take is not seen (its reach is a lower bound), and the chase
// cannot miss it, so its extra is not part of the truth; the probe says which levels it missed.
std::vector<Fact> dram_facts(const json& description) {
  const double dram = description.at("dram_latency").get<double>();
  double extras = 0;
  for (const json& tlb : description.value("tlbs", json::array())) {
    const double reach = tlb.at("entries").get<double>() * tlb.at("page_bytes").get<double>();
    if (reach < chase_limit(description)) extras += tlb.at("miss_latency_extra").get<double>();
  }
  return {latency_fact("dram", "latency", dram),
          latency_fact("dram", "latency_tlb_miss", dram + extras),
          latency_patterns_fact(description)};
}

std::vector<Fact> shared_facts(const json& description) {
  const json& shared = description.at("shared_memory");
  const double latency = shared.at("latency").get<double>();
  Fact degrees = exact_fact("shared", "conflict_latency", json{{"cycles_per_degree", latency}});
  degrees.tolerance = "each degree d: d x latency, max(2 cy, 3 %)";
  degrees.matches = [latency](const json& found) {
    if (!found.is_array() || found.empty()) return false;
    for (const json& row : found) {
      const double d = row.at("degree").get<double>();
      if (!row.at("cycles").is_number() || !latency_matches(row.at("cycles").get<double>(), d * latency)) {
        return false;
      }
    }
    return true;
  };
  return {latency_fact("shared", "latency", latency), exact_fact("shared", "banks", shared.at("banks")),
          exact_fact("shared", "bank_width", shared.at("bank_width_bytes")), degrees};
}

}  // namespace

std::vector<Fact> memory_facts(const json& description) {
  std::vector<Fact> facts = dram_facts(description);
  for (Fact& f : tlb_facts(description)) facts.push_back(std::move(f));
  for (Fact& f : shared_facts(description)) facts.push_back(std::move(f));
  return facts;
}

std::vector<Fact> facts_of(const json& description) {
  std::vector<Fact> facts;
  for (auto part : {sm_cache_facts, l2_facts, memory_facts, bandwidth_facts}) {
    for (Fact& f : part(description)) facts.push_back(std::move(f));
  }
  return facts;
}

}  // namespace memtopo::validation
