// The JSON of a study run; see report.hpp.
#include <cmath>

#include "model/json.hpp"
#include "study/report.hpp"

namespace memtopo::study {
namespace {

using ojson = nlohmann::ordered_json;

ojson number_or_null(double value) {
  return std::isfinite(value) ? ojson(value) : ojson(nullptr);
}

ojson spread_to_json(const Spread& spread) {
  return ojson{{"p50", number_or_null(spread.p50)},     {"mean", number_or_null(spread.mean)},
               {"stdev", number_or_null(spread.stdev)}, {"p5", number_or_null(spread.p5)},
               {"p95", number_or_null(spread.p95)},     {"min", number_or_null(spread.min)},
               {"max", number_or_null(spread.max)},     {"samples", spread.samples}};
}

// A parameter or derived number is written bare; a measured value (or a missing one) as an
// object with its spread, confidence and note.
ojson cell_to_json(const Cell& cell) {
  const bool plain = !cell.spread && !cell.confidence && cell.note.empty();
  ojson value =
      cell.value.is_number_float() ? number_or_null(cell.value.get<double>()) : ojson(cell.value);
  if (plain) return value;
  ojson out{{"value", value}};
  if (cell.spread) out["spread"] = spread_to_json(*cell.spread);
  if (cell.confidence) out["confidence"] = *cell.confidence;
  if (!cell.note.empty()) out["note"] = cell.note;
  return out;
}

ojson table_to_json(const Table& table) {
  ojson columns = ojson::array();
  for (const Column& column : table.columns) {
    ojson entry{{"name", column.name}, {"unit", column.unit}, {"role", to_string(column.role)}};
    if (!column.method.empty()) entry["method"] = column.method;
    columns.push_back(std::move(entry));
  }
  ojson rows = ojson::array();
  for (const std::vector<Cell>& row : table.rows) {
    ojson entry = ojson::object();
    for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i) {
      entry[table.columns[i].name] = cell_to_json(row[i]);
    }
    rows.push_back(std::move(entry));
  }
  ojson out{{"id", table.id}, {"title", table.title}, {"columns", columns}, {"rows", rows}};
  if (table.plot) {
    out["plot"] = ojson{{"x", table.plot->x},
                        {"log2_x", table.plot->log2_x},
                        {"series", table.plot->series},
                        {"y", table.plot->y}};
  }
  return out;
}

ojson finding_to_json(const Finding& finding) {
  ojson out{{"table", finding.table}, {"what", finding.what}, {"why", finding.why}};
  out["at"] = ojson(finding.at);
  out["tied_to"] = finding.tied_to;
  out["confidence"] = finding.confidence ? ojson(*finding.confidence) : ojson(nullptr);
  return out;
}

}  // namespace

nlohmann::ordered_json study_to_json(const StudyReport& report) {
  const ojson header = topology_to_json(report.header);
  const StudyResult& result = report.result;
  ojson out;
  out["schema_version"] = kStudySchemaVersion;
  out["tool"] = header["tool"];
  out["run"] = header["run"];
  out["device"] = header["device"];
  ojson study{{"id", result.id},
              {"title", result.title},
              {"status", result.status},
              {"reason", result.reason}};
  study["parameters"] = ojson(result.parameters);
  ojson tables = ojson::array();
  for (const Table& table : result.tables) tables.push_back(table_to_json(table));
  study["tables"] = std::move(tables);
  ojson findings = ojson::array();
  for (const Finding& finding : result.findings) findings.push_back(finding_to_json(finding));
  study["findings"] = std::move(findings);
  study["notes"] = result.notes;
  out["study"] = std::move(study);
  out["warnings"] = header["warnings"];
  return out;
}

std::string render_study_json(const StudyReport& report) {
  return study_to_json(report).dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

}  // namespace memtopo::study
