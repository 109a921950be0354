#include "analysis/kstest.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace memtopo {

double ks_statistic(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("KS statistic of an empty sample");
  std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  const double n = static_cast<double>(x.size()), m = static_cast<double>(y.size());
  std::size_t i = 0, j = 0;
  double d = 0;
  while (i < x.size() && j < y.size()) {
    // Step past every sample equal to the smallest value left, in both samples, before
    // comparing: comparing between tied samples would measure a gap that no x has.
    const double value = std::min(x[i], y[j]);
    while (i < x.size() && x[i] == value) ++i;
    while (j < y.size() && y[j] == value) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / n - static_cast<double>(j) / m));
  }
  // Once one sample is used up its CDF is 1 and the other's only rises towards 1: no larger gap.
  return d;
}

double ks_critical_value(std::size_t n, std::size_t m, double alpha) {
  if (n == 0 || m == 0) throw std::invalid_argument("KS critical value for an empty sample");
  if (!(alpha > 0.0 && alpha < 1.0)) throw std::invalid_argument("KS alpha outside (0, 1)");
  const double nn = static_cast<double>(n), mm = static_cast<double>(m);
  return std::sqrt(-0.5 * std::log(alpha / 2.0) * (nn + mm) / (nn * mm));
}

double kolmogorov_q(double lambda) {
  if (!(lambda > 0.0)) return 1.0;
  constexpr double kSwitch = 1.18;  // both series need only a few terms on their own side
  double q = 0;
  if (lambda < kSwitch) {
    const double pi2 = std::numbers::pi * std::numbers::pi;
    double sum = 0;
    for (int k = 1; k <= 20; ++k) {
      const double odd = 2.0 * k - 1.0;
      sum += std::exp(-odd * odd * pi2 / (8.0 * lambda * lambda));
    }
    q = 1.0 - std::sqrt(2.0 * std::numbers::pi) / lambda * sum;
  } else {
    double sign = 1.0;
    for (int k = 1; k <= 100; ++k) {
      q += 2.0 * sign * std::exp(-2.0 * k * k * lambda * lambda);
      sign = -sign;
    }
  }
  return std::clamp(q, 0.0, 1.0);
}

double ks_p_value(double d, std::size_t n, std::size_t m) {
  if (n == 0 || m == 0) throw std::invalid_argument("KS p-value for an empty sample");
  const double nn = static_cast<double>(n), mm = static_cast<double>(m);
  const double root = std::sqrt(nn * mm / (nn + mm));
  return kolmogorov_q((root + 0.12 + 0.11 / root) * d);
}

KsResult ks_two_sample(std::span<const double> a, std::span<const double> b, double alpha) {
  KsResult r;
  r.statistic = ks_statistic(a, b);
  r.critical_value = ks_critical_value(a.size(), b.size(), alpha);
  r.p_value = ks_p_value(r.statistic, a.size(), b.size());
  r.different = r.statistic > r.critical_value;
  return r;
}

KsResult ks_test_change(std::span<const double> series, std::size_t t, double alpha) {
  if (t == 0 || t >= series.size())
    throw std::invalid_argument("change point outside the series");
  return ks_two_sample(series.first(t), series.subspan(t), alpha);
}

double change_confidence(const KsResult& test) { return 1.0 - test.p_value; }

}  // namespace memtopo
