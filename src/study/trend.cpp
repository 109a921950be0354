#include "study/trend.hpp"

namespace memtopo::study {

PairCount non_decreasing_pairs(std::span<const double> values, double tolerance) {
  PairCount count;
  for (std::size_t i = 1; i < values.size(); ++i) {
    ++count.pairs;
    if (values[i] >= values[i - 1] * (1 - tolerance)) ++count.in_order;
  }
  return count;
}

}  // namespace memtopo::study
