#pragma once
// The rows of a validation run, gathered as the cases run, and the markdown written from them:
// a summary per case and every fact not right (for docs/validation.md), and every fact
// (docs/validation-generations.md).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "support/fact.hpp"
#include "support/scoring.hpp"

namespace memtopo::validation {

struct ScoreRow {
  std::string case_name;
  std::string fact;  // element.property
  std::string truth;
  std::string tolerance;
  Score score;
  std::string known_owner;  // a known failure's owner ("" when not a known failure)
};

struct CaseCost {
  std::string case_name;
  double seconds = 0;      // wall time of the probes
  double cpu_seconds = 0;  // CPU time of the whole discovery
  std::uint64_t loads = 0;
  std::uint64_t batches = 0;
};

class ScoreTable {
 public:
  void add(ScoreRow row) { rows_.push_back(std::move(row)); }
  void add(CaseCost cost) { costs_.push_back(std::move(cost)); }
  bool empty() const { return rows_.empty(); }

  // Rows of the cases in `case_order` (names), in that order.
  void write_summary(std::ostream& out, const std::vector<std::string>& case_order) const;
  void write_not_right(std::ostream& out, const std::vector<std::string>& case_order) const;
  void write_all(std::ostream& out, const std::vector<std::string>& case_order) const;

 private:
  std::vector<const ScoreRow*> ordered(const std::vector<std::string>& case_order) const;
  std::vector<ScoreRow> rows_;
  std::vector<CaseCost> costs_;
};

// The verdict as the table shows it: "right", "unsure", "**wrong**", "wrong (known: owner)".
std::string verdict_cell(const ScoreRow& row);

}  // namespace memtopo::validation
