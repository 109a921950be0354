#include "study/kernel_study.hpp"

#include <cstdio>

namespace memtopo::study {

Cell timing_cell(const std::vector<double>& samples) {
  return measured_cell(samples, kTimingBand);
}

ConfidenceFactor quoted_cells(const std::vector<const Cell*>& cells, const std::string& what) {
  std::vector<double> confidences;
  for (const Cell* cell : cells) {
    if (cell != nullptr && cell->confidence) confidences.push_back(*cell->confidence);
  }
  return weakest_of(confidences, what);
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

}  // namespace memtopo::study
