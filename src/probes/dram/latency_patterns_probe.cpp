// dram.latency_patterns (latency_patterns_probe.hpp). Every row is one chase over `pages` pages
// of the largest page of the TLB levels involved, visited round-robin in a fixed seeded order,
// one line per visit:
//   TLB state s (levels 1..s miss, level s + 1 hits): pages = 1 when nothing misses, else a few
//     times the entries of level s (LRU over a cyclic chain: every visit misses it and every
//     level below), while level s + 1 holds at most half its entries;
//   data L1: path ca, warm (the lines fit in half the L1); data L2: path cg (not cached in L1),
//     warm (the lines fit in half the L2); data DRAM: path cg after flushing L2, no warm pass,
//     every visit a new line (the first visit of each page also misses every TLB level: at
//     most 1 in kMinColdRounds loads).
// Lines go round the pages so that consecutive visits use consecutive cache sets. A row whose
// loads fall into two modes (near and far L2 partitions) reports both (describe_latency), its
// cycles, spread and confidence the near mode's.
#include "probes/dram/latency_patterns_probe.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/staircase.hpp"
#include "analysis/stats.hpp"
#include "backend/chain.hpp"
#include "model/units.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "probes/core/latency_modes.hpp"

namespace memtopo {
namespace {

const char* const kTlbLevels[] = {"tlb_l1", "tlb_l2", "tlb_l3"};
// Loads timed per row.
constexpr std::uint64_t kSamples = 4096;
// Lines of the row that hits everything: a chain well inside any L1.
constexpr std::uint64_t kHitLines = 64;
// Pages that overflow a level: this many times its entries, or fewer down to
// kLeastMissFactor when the next level must still hold them in half its entries.
constexpr std::uint64_t kMissFactor = 4;
// Pages that overflow a level known only by a lower bound of its entries: under random
// replacement a cyclic chain of N pages over E entries hits about E / N of its visits (1/16).
constexpr std::uint64_t kBoundMissFactor = 16;
constexpr std::uint64_t kLeastMissFactor = 2;
// A cache or a level that must hold a chain holds it in at most this share of its capacity
// (1 / kHoldingShare): consecutive sets keep every set at half its ways.
constexpr std::uint64_t kHoldingShare = 2;
// A cold row visits every page at least this many times: the first visit of a page misses
// every TLB level, so at most 1 in this many loads does.
constexpr std::uint64_t kMinColdRounds = 4;
// The line size when no line was measured.
constexpr std::uint64_t kDefaultLineBytes = 128;

enum class DataLevel { l1, l2, dram };

const char* to_string(DataLevel level) {
  switch (level) {
    case DataLevel::l1:
      return "l1";
    case DataLevel::l2:
      return "l2";
    case DataLevel::dram:
      return "dram";
  }
  return "?";
}

struct TlbLevel {
  std::uint64_t entries = 0;
  std::uint64_t page_bytes = 0;
  // `entries` is a lower bound (the chain one shorter than the level's first miss fitted, but
  // its sets could not be read: on the H200 the L1 TLB's misses grow as under random
  // replacement). A chain that must miss it then takes kBoundMissFactor times the bound.
  bool at_least = false;
};

// What the rows are planned from.
struct Plan {
  std::vector<TlbLevel> tlbs;             // the conclusive levels from tlb_l1 on
  std::optional<std::uint64_t> l1_lines;  // lines the L1 holds (none: no L1 row)
  std::uint64_t l2_lines = 0;
  std::uint64_t line_bytes = kDefaultLineBytes;
  std::uint64_t footprint_limit = 0;
  std::uint64_t max_timed_loads = 0;
  std::optional<std::uint32_t> sm;
};

// One row's chase, or why the combination cannot be reached.
struct RowDesign {
  DataLevel data = DataLevel::l2;
  std::size_t missed_levels = 0;  // TLB levels 1..this miss, the next hits
  std::uint64_t pages = 0;
  std::uint64_t page_bytes = 0;
  std::uint64_t rounds = 0;  // lines per page
  std::string unreachable;   // non-empty: no chase
};

Plan make_plan(const ProbeContext& ctx) {
  Plan plan;
  for (const char* level : kTlbLevels) {
    const auto page = finding_count(ctx.topology, level, "page");
    if (!page) break;
    if (const auto entries = finding_count(ctx.topology, level, "entries")) {
      plan.tlbs.push_back({*entries, *page, false});
      continue;
    }
    // A lower bound taken as the entries: the rows are at most even odds (the runner's cap,
    // core/inheritance.hpp), since a level beyond 16 times the bound would not overflow.
    const Property* bound = any_finding(ctx.topology, level, "entries");
    if (!bound || bound->bound != Bound::lower || !bound->value.is_number() ||
        bound->value.get<double>() < 1) {
      break;
    }
    plan.tlbs.push_back({static_cast<std::uint64_t>(bound->value.get<double>()), *page, true});
  }
  if (plan.tlbs.empty()) {
    throw ProbeSkipped(
        "needs tlb_l1.page and tlb_l1.entries (or a lower bound of them), which are not "
        "conclusive");
  }
  plan.line_bytes = finding_count(ctx.topology, "l1", "line").value_or(kDefaultLineBytes);
  if (const auto l1 = finding_count(ctx.topology, "l1", "size")) {
    plan.l1_lines = *l1 / plan.line_bytes;
  }
  const std::uint64_t l2 =
      finding_count(ctx.topology, "l2", "size").value_or(ctx.backend.facts().l2_bytes);
  plan.l2_lines = l2 / plan.line_bytes;
  const BackendLimits limits = ctx.backend.limits();
  plan.footprint_limit = plannable_bytes(limits.max_wide_footprint_bytes);
  plan.max_timed_loads = limits.max_timed_loads;
  if (!limits.sm_ids.empty()) plan.sm = limits.sm_ids.front();
  return plan;
}

// Pages of `page_bytes` that miss levels 1..s and hit level s + 1 (when there is one), or why
// none do.
std::optional<std::uint64_t> pages_for(const Plan& plan, std::size_t s, std::uint64_t page_bytes,
                                       std::string& why) {
  if (s == 0) return 1;
  const TlbLevel& missed = plan.tlbs[s - 1];
  if (s == plan.tlbs.size()) {
    // Every level misses (a walk): fewer times its entries where the memory allows no more (the
    // H200's L2 TLB of 2048 entries of 32 MiB: 4x is 256 GiB, 2x fits).
    const std::uint64_t most = missed.at_least ? kBoundMissFactor : kMissFactor;
    for (std::uint64_t factor = most; factor > kLeastMissFactor; --factor) {
      if (factor * missed.entries * page_bytes <= plan.footprint_limit) {
        return factor * missed.entries;
      }
    }
    return kLeastMissFactor * missed.entries;
  }
  const std::uint64_t overflowed =
      missed.at_least ? missed.entries * kBoundMissFactor / kMissFactor : missed.entries;
  const std::uint64_t holdable = plan.tlbs[s].entries / kHoldingShare;
  for (std::uint64_t factor = kMissFactor; factor >= kLeastMissFactor; --factor) {
    if (factor * overflowed <= holdable) return factor * overflowed;
  }
  why = "TLB level " + std::to_string(s + 1) + " (" + std::to_string(plan.tlbs[s].entries) +
        " entries) cannot hold in half of them " + std::to_string(kLeastMissFactor) +
        "x the entries of level " + std::to_string(s);
  return std::nullopt;
}

RowDesign design(const Plan& plan, DataLevel data, std::size_t s) {
  RowDesign row;
  row.data = data;
  row.missed_levels = s;
  const std::size_t involved = std::min(s + 1, plan.tlbs.size());
  for (std::size_t k = 0; k < involved; ++k) {
    row.page_bytes = std::max(row.page_bytes, plan.tlbs[k].page_bytes);
  }
  const auto pages = pages_for(plan, s, row.page_bytes, row.unreachable);
  if (!pages) return row;
  row.pages = *pages;
  const std::uint64_t lines_per_page = std::max<std::uint64_t>(1, row.page_bytes / plan.line_bytes);
  if (data == DataLevel::dram) {
    const std::uint64_t wanted = std::max(kMinColdRounds, (kSamples + row.pages - 1) / row.pages);
    row.rounds = std::min(wanted, lines_per_page);
  } else {
    row.rounds = s == 0 ? std::min(kHitLines, lines_per_page) : 1;
  }
  const std::uint64_t lines = row.pages * row.rounds;
  if (data == DataLevel::l1 && !plan.l1_lines) {
    row.unreachable = "no conclusive l1.size";
  } else if (data == DataLevel::l1 && lines * kHoldingShare > *plan.l1_lines) {
    row.unreachable = std::to_string(lines) + " lines do not fit in half the L1 (" +
                      std::to_string(*plan.l1_lines) + " lines)";
  } else if (data == DataLevel::l2 && lines * kHoldingShare > plan.l2_lines) {
    row.unreachable = std::to_string(lines) + " lines do not fit in half the L2 (" +
                      std::to_string(plan.l2_lines) + " lines)";
  } else if (row.pages * row.page_bytes > plan.footprint_limit) {
    row.unreachable = format_bytes(static_cast<double>(row.pages * row.page_bytes)) +
                      " exceed the device memory one chase may take (" +
                      format_bytes(static_cast<double>(plan.footprint_limit)) + ")";
  }
  return row;
}

// Word indices (even: 64-bit elements) in visiting order: round r visits every page in one
// seeded order, page p at line (p + r) mod lines-per-page, so that a page never repeats a line
// and consecutive visits use consecutive sets.
std::vector<std::uint64_t> row_chain(const RowDesign& row, std::uint64_t line_bytes,
                                     std::uint64_t seed) {
  std::vector<std::uint64_t> order(row.pages);
  for (std::uint64_t p = 0; p < row.pages; ++p) order[p] = p;
  SplitMix64 rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  const std::uint64_t lines_per_page = std::max<std::uint64_t>(1, row.page_bytes / line_bytes);
  std::vector<std::uint64_t> words;
  words.reserve(row.pages * row.rounds);
  for (std::uint64_t r = 0; r < row.rounds; ++r) {
    for (const std::uint64_t p : order) {
      words.push_back((p * row.page_bytes + (p + r) % lines_per_page * line_bytes) / 4);
    }
  }
  return words;
}

ChaseSpec row_chase(const Plan& plan, const RowDesign& row, std::uint64_t seed) {
  const bool cold = row.data == DataLevel::dram;
  const std::uint64_t loads = cold ? row.pages * row.rounds : kSamples;
  ChaseBuilder builder =
      make_chase(row.data == DataLevel::l1 ? LoadPath::ca : LoadPath::cg,
                 row.pages * row.page_bytes, static_cast<std::uint32_t>(plan.line_bytes))
          .visiting_wide(row_chain(row, plan.line_bytes, seed))
          .on_sm(plan.sm)
          .warm_passes(cold ? 0 : 1)
          .timed_loads(static_cast<std::uint32_t>(std::min(loads, plan.max_timed_loads)))
          // Rows of up to most of the device memory, after the TLB row's as large: one array
          // for all (ChaseSpec::keep_arrays; a new one after a freed one waited ~0.37 s).
          .keeping_arrays();
  if (cold) builder.flush_device_caches();
  return std::move(builder).spec();
}

nlohmann::json tlb_cells(const Plan& plan, std::size_t missed) {
  nlohmann::json cells = nlohmann::json::array();
  for (std::size_t k = 0; k < plan.tlbs.size(); ++k) {
    cells.push_back(k < missed ? "miss" : k == missed ? "hit" : "-");
  }
  return cells;
}

nlohmann::json describe(const Plan& plan, const RowDesign& row) {
  nlohmann::json out = {{"data", to_string(row.data)}, {"tlb", tlb_cells(plan, row.missed_levels)}};
  if (!row.unreachable.empty()) {
    out["reachable"] = false;
    out["why"] = row.unreachable;
    return out;
  }
  out["reachable"] = true;
  out["path"] = row.data == DataLevel::l1 ? "ca" : "cg";
  out["cold"] = row.data == DataLevel::dram;
  out["pages"] = row.pages;
  out["page_bytes"] = row.page_bytes;
  out["lines_per_page"] = row.rounds;
  return out;
}

}  // namespace

void LatencyPatternsProbe::run(ProbeContext& ctx) {
  const Plan plan = make_plan(ctx);
  Property p;
  p.name = "latency_patterns";
  p.unit = "cycles";
  p.method =
      "one pointer chase per combination of data level (L1 via ca, L2 via cg, DRAM via cg "
      "after flushing L2, cold) and TLB levels missed (a cyclic chain over a few times a level's "
      "entries in pages, 16 times where only a lower bound of them is known, held by the next "
      "level): p50 per row, timing overhead subtracted "
      "(paper 000, Table 3); a row whose loads split into two modes (near and far L2 "
      "partitions) lists both with their shares, its cycles, spread and confidence the near "
      "mode's";
  p.value = nlohmann::json::array();
  std::vector<double> confidences;
  std::uint64_t seed = ctx.seed;
  for (std::size_t s = 0; s <= plan.tlbs.size(); ++s) {
    for (const DataLevel data : {DataLevel::l1, DataLevel::l2, DataLevel::dram}) {
      const RowDesign row = design(plan, data, s);
      nlohmann::json out = describe(plan, row);
      if (row.unreachable.empty()) {
        const ChaseSpec spec = row_chase(plan, row, seed++);
        ctx.progress("dram.latency_patterns: " + std::string(to_string(data)) + ", " +
                     std::to_string(s) + " TLB level(s) missed");
        const std::vector<Trace> traces = ctx.run(std::span(&spec, 1), "dram.latency_patterns");
        const LatencyDescription d =
            describe_latency({corrected_cycles(traces.front()), {}}, true, "loads");
        write_latency_row(d, out);
        confidences.push_back(d.confidence.value());
      }
      p.value.push_back(std::move(out));
    }
  }
  nlohmann::json bounded = nlohmann::json::array();
  for (std::size_t k = 0; k < plan.tlbs.size(); ++k) {
    if (plan.tlbs[k].at_least) bounded.push_back(kTlbLevels[k]);
  }
  p.evidence = {{"tlb_levels", plan.tlbs.size()},
                {"planned_from_a_lower_bound_of_entries", bounded},
                {"line_bytes", plan.line_bytes},
                {"l2_lines", plan.l2_lines},
                {"described_band", kDescribedBand}};
  if (confidences.empty()) {
    p.inconclusive = true;
    p.note = "no combination could be reached";
  } else {
    set_confidence(p, {weakest_of(confidences, "rows' confidences")});
  }
  element_for(ctx.topology, "dram").set(std::move(p));
}

}  // namespace memtopo
