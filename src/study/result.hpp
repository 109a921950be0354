#pragma once
// What a study returns: named tables of rows (parameters, measured values with unit, method,
// spread and a computed confidence, predictions) and findings ("where the curve changes and
// why"). Plain data; the reporters (study/report.hpp, printed through cli/printers) are views of it.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/topology.hpp"

namespace memtopo::study {

// What a column holds. Parameters say where a row was measured; measured values come with a
// spread and a confidence; predicted values are what the topology says the row should show;
// derived values are computed from the others (a ratio to the best case).
enum class ColumnRole { parameter, measured, predicted, derived };
const char* to_string(ColumnRole role);

struct Column {
  std::string name;  // stable, snake_case: "stride_elements", "bytes_per_second"
  std::string unit;  // base unit ("bytes", "cycles", "bytes/second") or "" for a count
  ColumnRole role = ColumnRole::parameter;
  std::string method;  // measured and predicted columns: how the value is obtained, one line
};

// One value of a row. `value` is a number, a string or null ("not measured": `note` says why).
struct Cell {
  nlohmann::json value;
  std::optional<Spread> spread;      // measured values: of the samples the value summarises
  std::optional<double> confidence;  // measured values: computed (analysis/confidence.hpp)
  std::string note;                  // why null, or a short qualifier
};

// A measured cell from its samples: value = p50, the spread, and the confidence that the p50
// describes them (share_within the relative band). Throws for no samples.
Cell measured_cell(const std::vector<double>& samples, double band = 0.05);
Cell number_cell(double value);
Cell text_cell(std::string text);
Cell missing_cell(std::string why);  // null with the reason: "not measured", "not modelled"

// How a table is drawn in the HTML report: `x` against each of `y`, one curve per value of
// `series` (the table's rows grouped by it; "" for a single curve).
struct TablePlot {
  std::string x;                // a parameter column
  bool log2_x = false;          // doubling sweeps (strides, threads per block)
  std::string series;           // a parameter column, or ""
  std::vector<std::string> y;   // measured or derived columns, one chart each
};

struct Table {
  std::string id;     // stable within the study: "throughput_ca_4"
  std::string title;  // one line for the console
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  // each row has one cell per column
  std::optional<TablePlot> plot;        // none: the table is not drawn

  // Index of the column named `name`; throws std::out_of_range when there is none.
  std::size_t column(const std::string& name) const;
};

// Where a curve changes, and why: "throughput halves from stride 8 to 16 (4 B elements):
// a warp's request then spans 16 sectors of 32 B" tied to the topology's l1.sector.
struct Finding {
  std::string table;                             // the table it reads
  std::string what;                              // the observation, one sentence
  std::string why;                               // the cause (sector, line, bank width ...)
  nlohmann::json at = nlohmann::json::object();  // the parameters where it happens
  std::string tied_to;  // the topology values it rests on ("l1.sector = 32 B (measured)"), or ""
  std::optional<double> confidence;  // computed; unset when the finding is only a note
};

// A study's result. status "ok", "skipped" (reason says why: the device cannot model it) or
// "failed" (reason says what went wrong; what was measured stays).
struct StudyResult {
  std::string id;
  std::string title;
  std::string status = "ok";
  std::string reason;
  nlohmann::json parameters = nlohmann::json::object();  // the sweep as run
  std::vector<Table> tables;
  std::vector<Finding> findings;
  std::vector<std::string> notes;  // method remarks: what the sim models, what it does not
};

}  // namespace memtopo::study
