#include "analysis/policy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace memtopo {

double RepeatedPasses::fraction() const {
  return compared ? static_cast<double>(repeating) / static_cast<double>(compared) : 0;
}

RepeatedPasses& RepeatedPasses::operator+=(const RepeatedPasses& other) {
  repeating += other.repeating;
  compared += other.compared;
  return *this;
}

RepeatedPasses repeated_passes(const std::vector<bool>& slow, std::size_t period) {
  if (period == 0) return {};
  const std::size_t passes = slow.size() / period;
  if (passes < 3) return {};  // the first pass is cold; at least two warm passes to compare
  std::map<std::vector<bool>, std::size_t> seen;
  for (std::size_t p = 1; p < passes; ++p) {
    ++seen[std::vector<bool>(slow.begin() + static_cast<std::ptrdiff_t>(p * period),
                             slow.begin() + static_cast<std::ptrdiff_t>((p + 1) * period))];
  }
  std::size_t best = 0;
  for (const auto& [pattern, n] : seen) best = std::max(best, n);
  return {best, passes - 1};
}

double periodic_fraction(const std::vector<bool>& slow, std::size_t period) {
  return repeated_passes(slow, period).fraction();
}

std::vector<Access> classify_accesses(std::span<const double> cycles,
                                      std::span<const std::uint32_t> lines, double threshold) {
  if (cycles.size() != lines.size()) {
    throw std::invalid_argument("classify_accesses: span lengths differ");
  }
  std::map<std::uint32_t, std::vector<double>> slow_of;
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    if (cycles[i] > threshold) slow_of[lines[i]].push_back(cycles[i]);
  }
  std::map<std::uint32_t, double> typical;
  for (auto& [line, v] : slow_of) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    typical[line] = v[v.size() / 2];
  }
  std::vector<Access> out(cycles.size(), Access::hit);
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    if (cycles[i] <= threshold) continue;
    const double t = typical.at(lines[i]);
    out[i] = std::fabs(cycles[i] - t) <= 0.25 * (t - threshold) ? Access::miss : Access::suspect;
  }
  return out;
}

VictimCounts victim_ways(std::span<const std::uint32_t> lines, std::span<const Access> kind,
                         std::uint32_t ways) {
  if (lines.size() != kind.size()) throw std::invalid_argument("victim_ways: span lengths differ");
  if (ways == 0) throw std::invalid_argument("victim_ways: ways must be positive");
  constexpr std::int64_t kAbsent = -1;
  std::vector<std::int64_t> way_of(ways + 1, kAbsent);
  std::uint32_t filled = 0;
  VictimCounts out;
  out.per_way.assign(ways, 0);
  std::vector<std::size_t> slow_at;
  // previous[i]: the index of the previous access to lines[i], or SIZE_MAX for its first one.
  constexpr std::size_t kNone = SIZE_MAX;
  std::vector<std::size_t> previous(kind.size(), kNone);
  std::vector<std::size_t> last_of(ways + 1, kNone);
  for (std::size_t i = 0; i < kind.size(); ++i) {
    if (lines[i] > ways) throw std::invalid_argument("victim_ways: line id above ways");
    if (kind[i] != Access::hit) slow_at.push_back(i);
    previous[i] = last_of[lines[i]];
    last_of[lines[i]] = i;
  }
  for (std::size_t k = 0; k < slow_at.size(); ++k) {
    const std::uint32_t x = lines[slow_at[k]];
    if (way_of[x] != kAbsent) {
      // A clean miss on a line the model holds: the model went wrong; a suspect: an outlier.
      if (kind[slow_at[k]] == Access::miss) ++out.inconsistencies;
      continue;
    }
    if (filled < ways) {  // cold fill: lowest empty way
      way_of[x] = filled++;
      continue;
    }
    // The set is full: the victim is the present line whose next access after this miss is a
    // miss; it is the first line to miss again. A line that was accessed since this miss without
    // a miss is present, so a suspect on it is an outlier on a hit. A suspect on a line not
    // accessed since is an outlier on a hit or on the victim's miss: the two give the same
    // hits and misses afterwards, but name different victim ways, and a wrong guess would swap
    // two ways in the model for the rest of the trace. Tracking stops there.
    std::size_t n = k + 1;
    bool ambiguous = false;
    for (; n < slow_at.size(); ++n) {
      const std::size_t at = slow_at[n];
      const std::uint32_t y = lines[at];
      if (y == x || way_of[y] == kAbsent) continue;
      if (kind[at] == Access::miss) break;
      const bool accessed_since = previous[at] != kNone && previous[at] > slow_at[k];
      if (!accessed_since) {
        ambiguous = true;
        break;
      }
    }
    if (ambiguous) {
      out.stopped_at = slow_at[n];
      break;
    }
    if (n == slow_at.size()) break;  // the trace ends before the victim shows
    const std::uint32_t y = lines[slow_at[n]];
    const auto v = way_of[y];
    ++out.per_way[static_cast<std::size_t>(v)];
    ++out.victims;
    way_of[y] = kAbsent;
    way_of[x] = v;
  }
  return out;
}

namespace {

// Regularized lower incomplete gamma P(a, x) by its series (x < a + 1) and upper Q(a, x) by a
// continued fraction (Lentz) otherwise; both standard expansions.
double gamma_p_series(double a, double x) {
  double sum = 1.0 / a, term = sum;
  for (int n = 1; n < 1000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * 1e-15) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

double gamma_q_fraction(double a, double x) {
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-15) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

}  // namespace

double chi_square_upper_tail(double x, double dof) {
  if (dof <= 0) throw std::invalid_argument("chi_square_upper_tail: dof must be positive");
  if (x <= 0) return 1;
  const double a = dof / 2, hx = x / 2;
  if (hx < a + 1) return std::clamp(1 - gamma_p_series(a, hx), 0.0, 1.0);
  return std::clamp(gamma_q_fraction(a, hx), 0.0, 1.0);
}

double chi_square_critical(double dof, double alpha) {
  double lo = 0, hi = dof + 10;
  while (chi_square_upper_tail(hi, dof) > alpha) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (chi_square_upper_tail(mid, dof) > alpha ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

ChiSquare chi_square_uniform(std::span<const std::uint64_t> counts) {
  if (counts.size() < 2) throw std::invalid_argument("chi_square_uniform: needs two counts");
  double total = 0;
  for (auto c : counts) total += static_cast<double>(c);
  if (total <= 0) throw std::invalid_argument("chi_square_uniform: no observations");
  const double expected = total / static_cast<double>(counts.size());
  ChiSquare r;
  for (auto c : counts)
    r.statistic +=
        (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  r.dof = static_cast<double>(counts.size() - 1);
  r.p_value = chi_square_upper_tail(r.statistic, r.dof);
  return r;
}

LruFifo lru_or_fifo(std::size_t slow_touches, std::size_t touches) {
  if (slow_touches > touches) throw std::invalid_argument("lru_or_fifo: more slow than touches");
  LruFifo r;
  if (touches == 0) return r;
  const double first_touch_slow = static_cast<double>(slow_touches) / static_cast<double>(touches);
  if (first_touch_slow >= kFifoMissShare) {
    r.policy = "fifo";
    r.confidence = agreement(slow_touches, touches,
                             "re-touch passes whose re-touched line "
                             "was evicted (FIFO)");
  } else if (first_touch_slow <= kLruMissShare) {
    r.policy = "lru";
    r.confidence = agreement(touches - slow_touches, touches,
                             "re-touch passes whose re-touched line survived (LRU)");
  }
  return r;
}

namespace {

// The single chases that say what the pooled victims say (uniform over the ways, or not), and
// those with enough victims to say anything.
ConfidenceFactor chases_agreeing(std::span<const VictimCounts> chases, bool uniform) {
  std::size_t tested = 0, agreeing = 0;
  for (const auto& chase : chases) {
    const auto ways = static_cast<double>(chase.per_way.size());
    if (chase.per_way.size() < 2 ||
        static_cast<double>(chase.victims) < kMinChaseVictimsPerWay * ways)
      continue;
    ++tested;
    if ((chi_square_uniform(chase.per_way).p_value >= kPolicyAlpha) == uniform) ++agreeing;
  }
  return agreement(agreeing, tested,
                   std::string("victim chases whose own chi-square test found the victims ") +
                       (uniform ? "uniform" : "not uniform"));
}

}  // namespace

PolicyVerdict classify_policy(const RepeatedPasses& periodic, const LruFifo& retouch,
                              const VictimCounts& victims, std::span<const VictimCounts> chases) {
  PolicyVerdict v;
  if (periodic.fraction() >= kPeriodicShare) {
    if (retouch.policy.empty()) {
      v.why = "periodic misses (LRU or FIFO) but the re-touch chase told neither";
      return v;
    }
    v.policy = retouch.policy;
    v.confidence = {agreement(periodic.repeating, periodic.compared,
                              "warm passes repeating the most common miss pattern"),
                    retouch.confidence};
    v.why = "periodic misses; the re-touched line " +
            std::string(retouch.policy == "lru" ? "survived (LRU)" : "was evicted (FIFO)");
    return v;
  }
  const auto ways = victims.per_way.size();
  if (ways < 2 ||
      static_cast<double>(victims.victims) < kMinVictimsPerWay * static_cast<double>(ways)) {
    v.why = "aperiodic misses, but too few victims (" + std::to_string(victims.victims) +
            ") to estimate per-way probabilities";
    return v;
  }
  for (auto c : victims.per_way)
    v.weights.push_back(static_cast<double>(c) / static_cast<double>(victims.victims));
  v.chi_square = chi_square_uniform(victims.per_way);
  const bool uniform = v.chi_square.p_value >= kPolicyAlpha;
  v.policy = uniform ? "random" : "weighted";
  v.confidence = {chases_agreeing(chases, uniform)};
  v.why = std::string("aperiodic misses, victims ") + (uniform ? "" : "not ") +
          "uniform over the ways (chi-square p = " + std::to_string(v.chi_square.p_value) + ")";
  return v;
}

namespace {

// Chi-square statistic of a 2 x ways table: one chase's victims against the others' pooled.
double homogeneity_statistic(const std::vector<std::uint64_t>& mine,
                             const std::vector<std::uint64_t>& all) {
  double mine_sum = 0, rest_sum = 0;
  for (std::size_t w = 0; w < mine.size(); ++w) {
    mine_sum += static_cast<double>(mine[w]);
    rest_sum += static_cast<double>(all[w] - mine[w]);
  }
  if (mine_sum == 0 || rest_sum == 0) return 0;
  const double grand = mine_sum + rest_sum;
  double statistic = 0;
  for (std::size_t w = 0; w < mine.size(); ++w) {
    const double column = static_cast<double>(all[w]);
    if (column == 0) continue;
    const double expect_mine = column * mine_sum / grand, expect_rest = column * rest_sum / grand;
    const double got_mine = static_cast<double>(mine[w]), got_rest = column - got_mine;
    statistic += (got_mine - expect_mine) * (got_mine - expect_mine) / expect_mine +
                 (got_rest - expect_rest) * (got_rest - expect_rest) / expect_rest;
  }
  return statistic;
}

}  // namespace

VictimCounts pool_homogeneous_victims(std::span<const VictimCounts> chases, double alpha,
                                      std::vector<std::size_t>& left_out) {
  left_out.clear();
  VictimCounts pooled;
  if (chases.empty()) return pooled;
  const std::size_t ways = chases.front().per_way.size();
  std::vector<bool> kept(chases.size(), true);
  // Leave out the most deviant chase while it deviates significantly, one at a time (a drifted
  // chase also pulls the others' pool, so testing all against one pool would condemn them
  // all), and never more than half of them.
  while (ways >= 2 && 2 * (left_out.size() + 1) <= chases.size()) {
    std::vector<std::uint64_t> all(ways, 0);
    for (std::size_t i = 0; i < chases.size(); ++i) {
      if (!kept[i]) continue;
      for (std::size_t w = 0; w < ways; ++w) all[w] += chases[i].per_way[w];
    }
    std::size_t worst = chases.size();
    double worst_statistic = 0;
    for (std::size_t i = 0; i < chases.size(); ++i) {
      if (!kept[i]) continue;
      const double statistic = homogeneity_statistic(chases[i].per_way, all);
      if (statistic > worst_statistic) {
        worst_statistic = statistic;
        worst = i;
      }
    }
    if (worst == chases.size() ||
        chi_square_upper_tail(worst_statistic, static_cast<double>(ways - 1)) >= alpha) {
      break;
    }
    kept[worst] = false;
    left_out.push_back(worst);
  }
  std::sort(left_out.begin(), left_out.end());
  pooled.per_way.assign(ways, 0);
  for (std::size_t i = 0; i < chases.size(); ++i) {
    pooled.inconsistencies += chases[i].inconsistencies;
    if (!kept[i]) continue;
    for (std::size_t w = 0; w < ways; ++w) pooled.per_way[w] += chases[i].per_way[w];
    pooled.victims += chases[i].victims;
  }
  return pooled;
}

}  // namespace memtopo
