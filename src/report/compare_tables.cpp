#include "report/compare_tables.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "model/units.hpp"

namespace memtopo {
namespace {

// At most this many row numbers are listed; the rest are counted.
constexpr std::size_t kRowsListed = 8;

bool plain(const nlohmann::json& value) {
  if (!value.is_structured()) return true;
  return value.is_array() && std::none_of(value.begin(), value.end(),
                                          [](const nlohmann::json& v) { return v.is_structured(); });
}

bool same_field(const nlohmann::json& a, const nlohmann::json& b, double relative_floor) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::abs(x - y) <= relative_floor * std::max(std::abs(x), std::abs(y));
  }
  return a == b;
}

// The plain fields in which two rows differ (a row that is not an object: "value").
std::set<std::string> differing_fields(const nlohmann::json& a, const nlohmann::json& b,
                                       double relative_floor) {
  std::set<std::string> fields;
  if (!a.is_object() || !b.is_object()) {
    if (!same_field(a, b, relative_floor)) fields.insert("value");
    return fields;
  }
  for (const auto* row : {&a, &b}) {
    const nlohmann::json& other = row == &a ? b : a;
    for (auto it = row->begin(); it != row->end(); ++it) {
      if (!plain(it.value())) continue;
      const auto match = other.find(it.key());
      if (match == other.end() || !same_field(it.value(), *match, relative_floor))
        fields.insert(it.key());
    }
  }
  return fields;
}

std::string joined(const std::set<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

nlohmann::json as_rows(const nlohmann::json& value) {
  return value.is_array() ? value : nlohmann::json::array({value});
}

}  // namespace

bool is_table(const nlohmann::json& value) {
  if (value.is_object()) return true;
  if (!value.is_array()) return false;
  return std::any_of(value.begin(), value.end(),
                     [](const nlohmann::json& item) { return item.is_structured(); });
}

TableDifference table_difference(const nlohmann::json& a, const nlohmann::json& b,
                                 double relative_floor) {
  const nlohmann::json rows_a = as_rows(a), rows_b = as_rows(b);
  const std::size_t common = std::min(rows_a.size(), rows_b.size());
  std::vector<std::size_t> differing;
  std::set<std::string> fields;
  for (std::size_t i = 0; i < common; ++i) {
    const std::set<std::string> row_fields = differing_fields(rows_a[i], rows_b[i], relative_floor);
    if (row_fields.empty()) continue;
    differing.push_back(i + 1);
    fields.insert(row_fields.begin(), row_fields.end());
  }
  TableDifference out;
  if (rows_a.size() != rows_b.size()) {
    out.summary = std::to_string(rows_a.size()) + " vs " + std::to_string(rows_b.size()) + " rows";
    if (differing.empty()) out.detail = "the " + std::to_string(common) + " in both agree";
  }
  if (differing.empty()) return out;
  if (!out.summary.empty()) out.summary += ", ";
  out.summary += std::to_string(differing.size()) + " of " + std::to_string(common) + " differ";
  out.detail = differing.size() == 1 ? "row " : "rows ";
  for (std::size_t i = 0; i < differing.size() && i < kRowsListed; ++i)
    out.detail += (i ? ", " : "") + std::to_string(differing[i]);
  if (differing.size() > kRowsListed)
    out.detail += " and " + std::to_string(differing.size() - kRowsListed) + " more";
  out.detail += " (" + joined(fields) + ")";
  return out;
}

std::string table_value_text(const nlohmann::json& value) {
  if (value.is_array()) {
    return value.size() == 1 ? "1 row" : std::to_string(value.size()) + " rows";
  }
  if (!value.is_object()) return format_value(value, "");
  std::string text;
  for (auto it = value.begin(); it != value.end(); ++it) {
    text += (text.empty() ? "" : ", ") + it.key() + ": " +
            (plain(it.value()) ? format_value(it.value(), "") : table_value_text(it.value()));
  }
  return text.empty() ? "none" : text;
}

}  // namespace memtopo
