#include "model/units.hpp"

#include <cmath>
#include <cstdio>

namespace memtopo {

std::string format_number(double value, int max_decimals) {
  if (!std::isfinite(value)) return "?";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", max_decimals, value);
  std::string text = buffer;
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double scaled = bytes;
  while (std::fabs(scaled) >= 1024 && unit < 4) {
    scaled /= 1024;
    ++unit;
  }
  return format_number(scaled, unit == 0 ? 0 : 2) + " " + kUnits[unit];
}

std::string format_seconds(double seconds) {
  double magnitude = std::fabs(seconds);
  if (magnitude < 1e-6) return format_number(seconds * 1e9, 1) + " ns";
  if (magnitude < 1e-3) return format_number(seconds * 1e6, 2) + " us";
  if (magnitude < 1) return format_number(seconds * 1e3, 2) + " ms";
  return format_number(seconds, 2) + " s";
}

std::string format_rate(double bytes_per_second) {
  if (std::fabs(bytes_per_second) >= 1e12) return format_number(bytes_per_second / 1e12, 2) + " TB/s";
  if (std::fabs(bytes_per_second) >= 1e9) return format_number(bytes_per_second / 1e9, 1) + " GB/s";
  return format_number(bytes_per_second / 1e6, 1) + " MB/s";
}

std::string format_clock_khz(double khz) {
  return format_number(khz / 1000, 0) + " MHz";
}

std::string format_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

namespace {

std::string format_scalar(const nlohmann::json& value, const std::string& unit) {
  if (value.is_null()) return "?";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (!value.is_number()) return value.dump();
  double number = value.get<double>();
  if (unit == "bytes") return format_bytes(number);
  if (unit == "cycles") return format_number(number, 1) + " cy";
  if (unit == "seconds") return format_seconds(number);
  if (unit == "bytes/second") return format_rate(number);
  if (unit.empty()) return format_number(number, 3);
  return format_number(number, 3) + " " + unit;
}

}  // namespace

std::string format_value(const nlohmann::json& value, const std::string& unit) {
  if (!value.is_array()) return format_scalar(value, unit);
  if (value.empty()) return "none";
  // A run of kRunAtLeast or more equal items reads "16 (x120)": a TLB of 128 sets lists its
  // ways per set, which would otherwise fill a line of the table.
  constexpr std::size_t kRunAtLeast = 4;
  std::string text;
  for (std::size_t i = 0; i < value.size();) {
    std::size_t run = 1;
    while (i + run < value.size() && value[i + run] == value[i]) ++run;
    if (!text.empty()) text += ", ";
    text += format_scalar(value[i], unit);
    if (run >= kRunAtLeast) {
      text += " (x" + std::to_string(run) + ")";
    } else {
      for (std::size_t r = 1; r < run; ++r) text += ", " + format_scalar(value[i], unit);
    }
    i += run;
  }
  return text;
}

}  // namespace memtopo
