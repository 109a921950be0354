#pragma once
// Table-valued properties in `memtopo compare` (l1.carveout, shared.conflict_latency,
// dram.latency_patterns, l2.partition_map): which rows differ, in a few words, never as raw
// JSON. Rows are aligned by position; a row differs where one of its plain fields (numbers,
// strings, lists of them) differs. Nested objects (a row's spread) move from run to run and are
// left to the row's own fields. Numbers within `relative_floor` of each other are the same.
#include <string>

#include <nlohmann/json.hpp>

namespace memtopo {

// A list of objects (the carveout table, latency patterns) or an object (l2.set_bits): its
// floats move from run to run, and no single spread judges it.
bool is_table(const nlohmann::json& value);

struct TableDifference {
  std::string summary;  // "3 of 9 rows differ", "5 vs 4 rows"; "" when no row differs
  std::string detail;   // "rows 2, 5, 7 (cycles, raw_cycles)": which, and in what fields
};

// Rows are numbered from 1.
TableDifference table_difference(const nlohmann::json& a, const nlohmann::json& b,
                                 double relative_floor);

// A table or object as a short text: "5 rows", "modulo: 480".
std::string table_value_text(const nlohmann::json& value);

}  // namespace memtopo
