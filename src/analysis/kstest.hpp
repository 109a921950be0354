#pragma once
// Two-sample Kolmogorov-Smirnov test (thesis 004, 3.3.4): do two samples, e.g. the latencies
// before and after an estimated change point, come from the same distribution?
//
// Latencies are integer cycle counts, so ties are the rule: the statistic is exact for ties
// (both empirical CDFs are compared only after every sample equal to a value is counted). The
// asymptotic p-value assumes continuous distributions; with ties it is conservative (too large).
#include <cstddef>
#include <span>

namespace memtopo {

// D = sup_x |F(x) - G(x)|, F and G the empirical CDFs of a and b; in [0, 1]. O((n + m) log).
// Throws std::invalid_argument when either sample is empty.
double ks_statistic(std::span<const double> a, std::span<const double> b);

// d_alpha = sqrt(-0.5 * ln(alpha / 2) * (n + m) / (n * m)) (thesis formula 3.3 with the sign
// that makes the root real: ln(alpha / 2) < 0). Reject "same distribution" at level alpha when
// D > d_alpha. Throws std::invalid_argument for n or m of 0 or alpha outside (0, 1).
double ks_critical_value(std::size_t n, std::size_t m, double alpha);

// Q_KS(lambda) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 lambda^2), the probability that the
// Kolmogorov distribution exceeds lambda; 1 for lambda <= 0. For small lambda the series
// converges slowly and 1 - (sqrt(2 pi) / lambda) sum_{k>=1} exp(-(2k-1)^2 pi^2 / (8 lambda^2))
// (the same function, by Jacobi's theta identity) is summed instead.
double kolmogorov_q(double lambda);

// Asymptotic p-value of D for sample sizes n and m: Q_KS(lambda) with the effective size
// ne = n m / (n + m) and Stephens' correction lambda = (sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) D.
double ks_p_value(double d, std::size_t n, std::size_t m);

struct KsResult {
  double statistic = 0;       // D
  double critical_value = 0;  // d_alpha
  double p_value = 1;
  bool different = false;     // D > d_alpha
};

KsResult ks_two_sample(std::span<const double> a, std::span<const double> b, double alpha = 0.05);

// The test of a change point t (0 < t < n): series[0, t) against series[t, n).
KsResult ks_test_change(std::span<const double> series, std::size_t t, double alpha = 0.05);

// Confidence in a detected change: 1 - p, in [0, 1]. It is the level at which "no change" is
// just rejected, not the probability that the change is real. Because the change point was
// chosen to make the two sides differ most, this p-value is optimistic for a borderline change;
// a clear change (a cache level) scores 1 - p ~ 1 regardless.
double change_confidence(const KsResult& test);

}  // namespace memtopo
