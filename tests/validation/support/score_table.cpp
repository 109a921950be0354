#include "support/score_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace memtopo::validation {
namespace {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", seconds);
  return text;
}

void row_line(std::ostream& out, const ScoreRow& r, bool first_of_case) {
  out << "| " << (first_of_case ? "`" + r.case_name + "`" : "") << " | " << r.fact << " | "
      << r.truth << " | " << r.tolerance << " | " << r.score.found << " | "
      << r.score.confidence << " | " << verdict_cell(r) << " | " << r.score.why << " |\n";
}

const char* const kHeader =
    "| Case | Fact | Configured | Tolerance | Found | Confidence | Verdict | Why |\n"
    "|---|---|---|---|---|---|---|---|\n";

}  // namespace

std::string verdict_cell(const ScoreRow& row) {
  if (!row.known_owner.empty()) return "wrong (known: " + row.known_owner + ")";
  if (row.score.verdict == Verdict::wrong) return "**wrong**";
  return to_string(row.score.verdict);
}

std::vector<const ScoreRow*> ScoreTable::ordered(const std::vector<std::string>& case_order) const {
  std::vector<const ScoreRow*> out;
  for (const std::string& name : case_order) {
    for (const ScoreRow& r : rows_) {
      if (r.case_name == name) out.push_back(&r);
    }
  }
  return out;
}

void ScoreTable::write_summary(std::ostream& out, const std::vector<std::string>& case_order) const {
  out << "| Case | Facts | Right | Unsure | Wrong | of which known | Probes (s) | CPU (s) | Loads "
         "| Batches |\n|---|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, CaseCost> cost_of;
  for (const CaseCost& c : costs_) cost_of[c.case_name] = c;
  std::size_t totals[4] = {0, 0, 0, 0};
  double seconds = 0, cpu = 0;
  for (const std::string& name : case_order) {
    std::size_t n[4] = {0, 0, 0, 0};  // facts, right, unsure, wrong
    std::size_t known = 0;
    for (const ScoreRow& r : rows_) {
      if (r.case_name != name) continue;
      ++n[0];
      ++n[1 + static_cast<int>(r.score.verdict)];
      known += r.known_owner.empty() ? 0 : 1;
    }
    if (n[0] == 0) continue;
    const CaseCost& c = cost_of[name];
    out << "| `" << name << "` | " << n[0] << " | " << n[1] << " | " << n[2] << " | " << n[3]
        << " | " << known << " | " << seconds_text(c.seconds) << " | "
        << seconds_text(c.cpu_seconds) << " | " << c.loads << " | " << c.batches << " |\n";
    for (int i = 0; i < 4; ++i) totals[i] += n[i];
    seconds += c.seconds;
    cpu += c.cpu_seconds;
  }
  out << "| all | " << totals[0] << " | " << totals[1] << " | " << totals[2] << " | " << totals[3]
      << " | | " << seconds_text(seconds) << " | " << seconds_text(cpu) << " | | |\n";
}

void ScoreTable::write_not_right(std::ostream& out,
                                 const std::vector<std::string>& case_order) const {
  out << kHeader;
  std::string last;
  for (const ScoreRow* r : ordered(case_order)) {
    if (r->score.verdict == Verdict::right) continue;
    row_line(out, *r, r->case_name != last);
    last = r->case_name;
  }
}

void ScoreTable::write_all(std::ostream& out, const std::vector<std::string>& case_order) const {
  out << kHeader;
  std::string last;
  for (const ScoreRow* r : ordered(case_order)) {
    row_line(out, *r, r->case_name != last);
    last = r->case_name;
  }
}

}  // namespace memtopo::validation
