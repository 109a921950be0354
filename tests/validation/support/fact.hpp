#pragma once
// One fact of a simulated device's ground truth, in the form a default discovery reports it:
// the element and property, the configured value, how close a finding must come to count as
// right, and whether the device reveals it at all.
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace memtopo::validation {

// The tolerances (docs/validation.md, "How a fact is scored"). A latency is a p50 of thousands
// of loads, so a few cycles cover the jitter and the rounding of the overhead; a device-wide
// size comes from a staircase whose steps are about 1 % apart; a bandwidth from a launch
// search whose launches vary by the description's launch jitter.
inline constexpr double kLatencyCycles = 2;       // latencies: within max(2 cycles, 3 %)
inline constexpr double kLatencyFraction = 0.03;
inline constexpr double kDeviceSizeFraction = 0.02;  // L2 sizes: within 2 %
inline constexpr double kBandwidthFraction = 0.05;   // bandwidths: within 5 %

// Whether the device shows a fact to a probe at all.
enum class Reveal {
  yes,     // measurable: the value must come back right, or the finding must say it is unsure
  hidden,  // the device does not reveal it: only an unsure finding is honest
  absent,  // no such element or level: nothing confident may be reported about it
};

struct Fact {
  std::string element;
  std::string property;
  nlohmann::json truth;   // the configured value as the report gives it; null when absent
  std::string tolerance;  // for the table: "exact", "1 line", "max(2 cy, 3 %)" ...
  std::function<bool(const nlohmann::json& found)> matches;  // a conclusive value vs the truth
  std::optional<double> number;  // the truth as a number: what a bound must not exclude
  Reveal reveal = Reveal::yes;
  std::string why;  // hidden or absent: why
};

// Makers, one per kind of comparison.
Fact exact_fact(std::string element, std::string property, nlohmann::json truth);
Fact within_fact(std::string element, std::string property, double truth, double tolerance,
                 std::string tolerance_text);
Fact latency_fact(std::string element, std::string property, double cycles);
Fact relative_fact(std::string element, std::string property, double truth, double fraction);
// A fact the device does not reveal (`truth` may still be shown in the table).
Fact hidden_fact(std::string element, std::string property, nlohmann::json truth,
                 std::string why);
// An element or level the device does not have.
Fact absent_fact(std::string element, std::string property, std::string why);

// Whether a latency in cycles is within the latency tolerance of the truth.
bool latency_matches(double found, double truth);

}  // namespace memtopo::validation
