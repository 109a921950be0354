// Reading a study's JSON back (study_to_json's form) for `memtopo report`; see report.hpp.
#include <cmath>
#include <limits>

#include "model/json.hpp"
#include "study/report.hpp"

namespace memtopo::study {
namespace {

using ojson = nlohmann::ordered_json;

// null (a value that was not finite when written) reads as NaN.
double number_of(const ojson& value) {
  return value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

Spread spread_from_json(const ojson& in) {
  Spread spread;
  spread.p50 = number_of(in.at("p50"));
  spread.mean = number_of(in.at("mean"));
  spread.stdev = number_of(in.at("stdev"));
  spread.p5 = number_of(in.at("p5"));
  spread.p95 = number_of(in.at("p95"));
  spread.min = number_of(in.at("min"));
  spread.max = number_of(in.at("max"));
  spread.samples = in.at("samples").get<std::size_t>();
  return spread;
}

// A bare value, or {value, spread?, confidence?, note?} (cell_to_json).
Cell cell_from_json(const ojson& in) {
  Cell cell;
  if (!in.is_object()) {
    cell.value = nlohmann::json::parse(in.dump());
    return cell;
  }
  cell.value = nlohmann::json::parse(in.at("value").dump());
  if (in.contains("spread")) cell.spread = spread_from_json(in.at("spread"));
  if (in.contains("confidence")) cell.confidence = in.at("confidence").get<double>();
  cell.note = in.value("note", "");
  return cell;
}

ColumnRole role_from_text(const std::string& text) {
  for (ColumnRole role : {ColumnRole::parameter, ColumnRole::measured, ColumnRole::predicted,
                          ColumnRole::derived}) {
    if (text == to_string(role)) return role;
  }
  throw std::invalid_argument("unknown column role '" + text + "'");
}

Table table_from_json(const ojson& in) {
  Table table;
  table.id = in.at("id").get<std::string>();
  table.title = in.at("title").get<std::string>();
  for (const ojson& column : in.at("columns")) {
    table.columns.push_back({column.at("name").get<std::string>(),
                             column.at("unit").get<std::string>(),
                             role_from_text(column.at("role").get<std::string>()),
                             column.value("method", "")});
  }
  for (const ojson& row : in.at("rows")) {
    std::vector<Cell> cells;
    for (const Column& column : table.columns) {
      cells.push_back(row.contains(column.name) ? cell_from_json(row.at(column.name))
                                                : missing_cell("not in the file"));
    }
    table.rows.push_back(std::move(cells));
  }
  if (in.contains("plot")) {
    const ojson& plot = in.at("plot");
    table.plot = TablePlot{plot.at("x").get<std::string>(), plot.at("log2_x").get<bool>(),
                           plot.at("series").get<std::string>(),
                           plot.at("y").get<std::vector<std::string>>()};
  }
  return table;
}

Finding finding_from_json(const ojson& in) {
  Finding finding;
  finding.table = in.at("table").get<std::string>();
  finding.what = in.at("what").get<std::string>();
  finding.why = in.at("why").get<std::string>();
  finding.at = nlohmann::json::parse(in.at("at").dump());
  finding.tied_to = in.value("tied_to", "");
  if (in.contains("confidence") && in.at("confidence").is_number()) {
    finding.confidence = in.at("confidence").get<double>();
  }
  return finding;
}

StudyResult result_from_json(const ojson& in) {
  StudyResult result;
  result.id = in.at("id").get<std::string>();
  result.title = in.at("title").get<std::string>();
  result.status = in.at("status").get<std::string>();
  result.reason = in.value("reason", "");
  result.parameters = nlohmann::json::parse(in.at("parameters").dump());
  for (const ojson& table : in.at("tables")) result.tables.push_back(table_from_json(table));
  for (const ojson& finding : in.at("findings")) {
    result.findings.push_back(finding_from_json(finding));
  }
  result.notes = in.at("notes").get<std::vector<std::string>>();
  return result;
}

}  // namespace

bool is_study_document(const nlohmann::ordered_json& document) {
  const auto version = document.find("schema_version");
  return version != document.end() && version->is_string() &&
         version->get<std::string>().rfind("memtopo-study", 0) == 0;
}

StudyReport study_from_json(const nlohmann::ordered_json& document, const std::string& origin) {
  if (!is_study_document(document) || document.at("schema_version") != kStudySchemaVersion) {
    throw TopologyJsonError(origin + ": not a study's result of schema " + kStudySchemaVersion);
  }
  // The header is written as a discovery writes it, without elements: read it the same way.
  ojson header{{"schema_version", kSchemaVersion}, {"tool", document.at("tool")},
               {"run", document.at("run")},        {"device", document.at("device")},
               {"elements", ojson::array()},       {"warnings", document.at("warnings")}};
  StudyReport report;
  report.header = topology_from_json(header, origin);
  try {
    report.result = result_from_json(document.at("study"));
  } catch (const std::exception& error) {
    throw TopologyJsonError(origin + ": study: " + error.what());
  }
  return report;
}

}  // namespace memtopo::study
