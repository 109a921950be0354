#pragma once
// Scores one fact of a device's ground truth against what a discovery reported for it:
//   right   the value, within the fact's tolerance, with confidence >= 0.5;
//   unsure  not reported, inconclusive, a bound that is true, an API value (not measured),
//           or any value with confidence < 0.5;
//   wrong   a value outside the tolerance with confidence >= 0.5, a bound that excludes the
//           truth, or a confident value for a fact the device does not reveal or an element it
//           does not have.
// `fails` marks what the suite never accepts: wrong at confidence >= 0.5, or a false bound.
#include <string>

#include "model/topology.hpp"
#include "support/fact.hpp"

namespace memtopo::validation {

enum class Verdict { right, unsure, wrong };
const char* to_string(Verdict verdict);

struct Score {
  Verdict verdict = Verdict::unsure;
  bool fails = false;
  std::string found;       // the reported value, for the table
  std::string confidence;  // "0.87", or "-" without one
  std::string why;         // what made it unsure or wrong
};

// `found` is the reported property (nullptr when the discovery did not report it);
// `not_reported_because` says why (a skipped probe's reason), when known.
Score score(const Fact& fact, const Property* found, const std::string& not_reported_because = "");

// A value as a table cell: short, no '|'.
std::string cell(const nlohmann::json& value);

}  // namespace memtopo::validation
