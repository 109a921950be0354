#include "study/result.hpp"

#include <stdexcept>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"

namespace memtopo::study {

const char* to_string(ColumnRole role) {
  switch (role) {
    case ColumnRole::parameter:
      return "parameter";
    case ColumnRole::measured:
      return "measured";
    case ColumnRole::predicted:
      return "predicted";
    case ColumnRole::derived:
      return "derived";
  }
  return "parameter";
}

Cell measured_cell(const std::vector<double>& samples, double band) {
  Cell cell;
  cell.spread = summarize(samples);
  cell.value = cell.spread->p50;
  const Confidence confidence{
      share_within(samples, cell.spread->p50, band, "samples within the band around p50")};
  cell.confidence = confidence.value();
  return cell;
}

Cell number_cell(double value) {
  Cell cell;
  cell.value = value;
  return cell;
}

Cell text_cell(std::string text) {
  Cell cell;
  cell.value = std::move(text);
  return cell;
}

Cell missing_cell(std::string why) {
  Cell cell;
  cell.note = std::move(why);
  return cell;
}

std::size_t Table::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  throw std::out_of_range("table " + id + " has no column " + name);
}

}  // namespace memtopo::study
