#include "analysis/associativity.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

namespace memtopo {

LineSlowCounts::LineSlowCounts(std::vector<Line> lines) : lines_(std::move(lines)) {
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (lines_[i].visits == 0 || lines_[i].slow > lines_[i].visits ||
        (i > 0 && lines_[i].line <= lines_[i - 1].line)) {
      throw std::invalid_argument(
          "LineSlowCounts: lines must ascend, each visited and slow at most on its visits");
    }
  }
}

const LineSlowCounts::Line* LineSlowCounts::find(std::uint64_t line) const {
  const auto it = std::lower_bound(lines_.begin(), lines_.end(), line,
                                   [](const Line& l, std::uint64_t x) { return l.line < x; });
  return it != lines_.end() && it->line == line ? &*it : nullptr;
}

std::uint32_t LineSlowCounts::visits(std::uint64_t line) const {
  const Line* found = find(line);
  return found ? found->visits : 0;
}

std::uint32_t LineSlowCounts::slow(std::uint64_t line) const {
  const Line* found = find(line);
  return found ? found->slow : 0;
}

bool LineSlowCounts::missed(std::uint64_t line, std::uint32_t min_slow) const {
  return slow(line) >= std::max<std::uint32_t>(min_slow, 1);
}

namespace {

// Lines spread over at most this many times the accesses (plus a constant) are counted in a
// table indexed by line; sparser ones by sorting the accesses by line.
constexpr std::uint64_t kTableSpanPerAccess = 4;
constexpr std::uint64_t kTableSpanSlack = 4096;

std::vector<LineSlowCounts::Line> counted_in_a_table(std::span<const double> corrected_cycles,
                                                     std::span<const std::uint32_t> indices,
                                                     std::uint32_t line_bytes,
                                                     double threshold_cycles, std::uint64_t first,
                                                     std::uint64_t span) {
  std::vector<LineSlowCounts::Line> table(span);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    LineSlowCounts::Line& at = table[std::uint64_t{indices[i]} * 4 / line_bytes - first];
    ++at.visits;
    at.slow += corrected_cycles[i] > threshold_cycles;
  }
  std::size_t kept = 0;
  for (std::uint64_t at = 0; at < span; ++at) {
    if (table[at].visits == 0) continue;
    table[kept] = table[at];
    table[kept++].line = first + at;
  }
  table.resize(kept);
  return table;
}

std::vector<LineSlowCounts::Line> counted_by_sorting(std::span<const double> corrected_cycles,
                                                     std::span<const std::uint32_t> indices,
                                                     std::uint32_t line_bytes,
                                                     double threshold_cycles) {
  std::vector<LineSlowCounts::Line> accesses(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    accesses[i] = {std::uint64_t{indices[i]} * 4 / line_bytes, 1,
                   corrected_cycles[i] > threshold_cycles ? 1u : 0u};
  }
  std::sort(accesses.begin(), accesses.end(),
            [](const auto& a, const auto& b) { return a.line < b.line; });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    if (kept > 0 && accesses[kept - 1].line == accesses[i].line) {
      ++accesses[kept - 1].visits;
      accesses[kept - 1].slow += accesses[i].slow;
    } else {
      accesses[kept++] = accesses[i];
    }
  }
  accesses.resize(kept);
  return accesses;
}

}  // namespace

LineSlowCounts slow_counts_per_line(std::span<const double> corrected_cycles,
                                    std::span<const std::uint32_t> indices,
                                    std::uint32_t line_bytes, double threshold_cycles) {
  if (corrected_cycles.size() != indices.size()) {
    throw std::invalid_argument("slow_counts_per_line: cycles and indices differ in length");
  }
  if (line_bytes == 0) throw std::invalid_argument("slow_counts_per_line: line_bytes is 0");
  if (indices.empty()) return {};
  const auto [low, high] = std::minmax_element(indices.begin(), indices.end());
  const std::uint64_t first = std::uint64_t{*low} * 4 / line_bytes;
  const std::uint64_t span = std::uint64_t{*high} * 4 / line_bytes - first + 1;
  if (span > kTableSpanPerAccess * indices.size() + kTableSpanSlack) {
    return LineSlowCounts(
        counted_by_sorting(corrected_cycles, indices, line_bytes, threshold_cycles));
  }
  return LineSlowCounts(
      counted_in_a_table(corrected_cycles, indices, line_bytes, threshold_cycles, first, span));
}

OverflowLines overflow_lines(const LineSlowCounts& counts, std::uint32_t min_slow) {
  if (min_slow == 0) throw std::invalid_argument("overflow_lines: min_slow must be at least 1");
  OverflowLines out;
  for (const LineSlowCounts::Line& line : counts.lines()) {
    if (line.slow < min_slow) continue;
    out.lines.push_back(line.line);
    if (line.slow < line.visits) ++out.partial;
  }
  return out;  // lines() ascend
}

PassAgreement passes_overflowing(std::span<const double> corrected_cycles,
                                 std::span<const std::uint32_t> indices, std::uint32_t line_bytes,
                                 double threshold_cycles, std::span<const std::uint64_t> set_lines,
                                 std::uint64_t chain_lines) {
  if (corrected_cycles.size() != indices.size()) {
    throw std::invalid_argument("passes_overflowing: cycles and indices differ in length");
  }
  if (line_bytes == 0 || chain_lines == 0) {
    throw std::invalid_argument("passes_overflowing: line_bytes and chain_lines must be positive");
  }
  const std::set<std::uint64_t> members(set_lines.begin(), set_lines.end());
  PassAgreement out;
  out.passes = indices.size() / chain_lines;
  for (std::size_t pass = 0; pass < out.passes; ++pass) {
    for (std::size_t i = pass * chain_lines; i < (pass + 1) * chain_lines; ++i) {
      if (corrected_cycles[i] > threshold_cycles &&
          members.count(std::uint64_t{indices[i]} * 4 / line_bytes)) {
        ++out.agreeing;
        break;
      }
    }
  }
  return out;
}

OverflowGeometry geometry_from_overflow(std::span<const std::uint64_t> missing_lines,
                                        std::uint64_t cache_lines) {
  OverflowGeometry g;
  if (missing_lines.size() < 2) {
    g.why = "fewer than two lines missed: no overfull set seen";
    return g;
  }
  g.ways = static_cast<std::uint32_t>(missing_lines.size() - 1);
  const std::uint64_t step = missing_lines[1] - missing_lines[0];
  g.arithmetic = step > 0;
  for (std::size_t i = 2; i < missing_lines.size() && g.arithmetic; ++i) {
    g.arithmetic = missing_lines[i] - missing_lines[i - 1] == step;
  }
  g.equal_sets_consistent = cache_lines % g.ways == 0;
  if (g.arithmetic) {
    g.period = step;
    g.sets = step;
    g.equal_sets_consistent = g.equal_sets_consistent && cache_lines / g.ways == step;
    g.found = true;
    return g;
  }
  if (!g.equal_sets_consistent) {
    g.why = "the missing lines are not evenly spaced and their count - 1 does not divide the " +
            std::to_string(cache_lines) + " lines of the cache";
    return g;
  }
  g.sets = cache_lines / g.ways;
  g.found = true;
  return g;
}

PerSetWaysSearch::PerSetWaysSearch(std::uint64_t sets, std::uint64_t max_m)
    : max_m_(max_m), fit_(sets, 0), overflow_(sets, 0) {
  if (sets == 0 || max_m == 0) throw std::invalid_argument("PerSetWaysSearch: sets and max_m > 0");
}

void PerSetWaysSearch::add(std::uint64_t m, const std::vector<bool>& overflowed) {
  if (overflowed.size() != fit_.size()) {
    throw std::invalid_argument("PerSetWaysSearch::add: one verdict per set expected");
  }
  for (std::size_t s = 0; s < fit_.size(); ++s) {
    if (overflowed[s]) {
      if (fit_[s] >= m) ++contradictions_;
      if (overflow_[s] == 0 || m < overflow_[s]) overflow_[s] = m;
    } else {
      if (overflow_[s] != 0 && overflow_[s] <= m) ++contradictions_;
      fit_[s] = std::max(fit_[s], m);
    }
  }
}

std::vector<std::uint64_t> PerSetWaysSearch::next(std::size_t count) const {
  std::vector<std::uint64_t> wanted;
  for (std::size_t s = 0; s < fit_.size(); ++s) {
    const std::uint64_t lo = fit_[s], hi = overflow_[s];
    std::uint64_t m = 0;
    if (hi == 0) {
      if (lo >= max_m_) continue;  // fits up to the limit: nothing more to learn
      m = std::min(max_m_, std::max<std::uint64_t>(1, lo * 2));
    } else if (hi <= lo) {
      continue;  // contradictory; counted, not searched further
    } else if (hi - lo > 1) {
      m = lo + (hi - lo) / 2;
    } else {
      continue;
    }
    wanted.push_back(m);
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  if (wanted.size() > count) {
    // Spread the picks over the range so that every bracket shrinks.
    std::vector<std::uint64_t> picked;
    for (std::size_t i = 0; i < count; ++i) picked.push_back(wanted[i * wanted.size() / count]);
    return picked;
  }
  return wanted;
}

std::vector<std::optional<std::uint64_t>> PerSetWaysSearch::ways() const {
  std::vector<std::optional<std::uint64_t>> out(fit_.size());
  for (std::size_t s = 0; s < fit_.size(); ++s) {
    if (overflow_[s] != 0 && overflow_[s] == fit_[s] + 1) out[s] = fit_[s];
  }
  return out;
}

std::vector<bool> overflowed_sets(const LineSlowCounts& counts, std::uint64_t sets,
                                  std::uint32_t min_slow_accesses) {
  if (sets == 0) throw std::invalid_argument("overflowed_sets: sets must be positive");
  std::vector<std::uint64_t> slow(sets, 0);
  for (const LineSlowCounts::Line& line : counts.lines()) slow[line.line % sets] += line.slow;
  std::vector<bool> out(sets);
  for (std::uint64_t s = 0; s < sets; ++s) out[s] = slow[s] >= min_slow_accesses;
  return out;
}

std::vector<std::uint32_t> index_bits_from_tests(const std::map<std::uint32_t, bool>& overflowed) {
  std::vector<std::uint32_t> bits;
  for (const auto& [bit, over] : overflowed) {
    if (!over) bits.push_back(bit);
  }
  return bits;
}

std::optional<OverflowRuns> overflow_runs(std::span<const std::uint64_t> missing_lines,
                                          std::uint64_t chased_lines) {
  if (missing_lines.empty()) return std::nullopt;
  std::vector<std::uint64_t> starts;
  std::vector<std::uint64_t> lengths;
  for (std::size_t i = 0; i < missing_lines.size(); ++i) {
    if (i > 0 && missing_lines[i] <= missing_lines[i - 1]) return std::nullopt;  // not ascending
    if (i > 0 && missing_lines[i] == missing_lines[i - 1] + 1) {
      ++lengths.back();
    } else {
      starts.push_back(missing_lines[i]);
      lengths.push_back(1);
    }
  }
  if (starts.size() < 2) return std::nullopt;
  OverflowRuns runs;
  runs.run_length = lengths.front();
  runs.period = starts[1] - starts[0];
  if (runs.run_length >= runs.period || runs.run_length >= chased_lines) return std::nullopt;
  for (std::size_t r = 0; r < starts.size(); ++r) {
    if (lengths[r] != runs.run_length || starts[r] != starts[0] + r * runs.period)
      return std::nullopt;
  }
  runs.starts = std::move(starts);
  runs.capacity_lines = chased_lines - runs.run_length;
  return runs;
}

}  // namespace memtopo
