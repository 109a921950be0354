#include "model/partition_rows.hpp"

#include <nlohmann/json.hpp>

namespace memtopo {
namespace {

// Larger SM ids in a map read from a file are not believed (a report would draw a grid of
// millions of cells).
constexpr std::uint64_t kMaxSmId = 65535;

// An SM id or partition number: a non-negative integer however the JSON holds it.
bool is_index(const nlohmann::json& value) {
  return value.is_number_integer() && value.get<std::int64_t>() >= 0;
}

bool is_sm_id(const nlohmann::json& value) {
  return is_index(value) && value.get<std::uint64_t>() <= kMaxSmId;
}

}  // namespace

std::vector<PartitionRow> partition_rows(const Property& map) {
  std::vector<PartitionRow> rows;
  if (!map.value.is_array()) return rows;
  for (const nlohmann::json& row : map.value) {
    if (!row.is_object() || !row.contains("partition") || !is_index(row["partition"]) ||
        !row.contains("sms") || !row["sms"].is_array()) {
      continue;
    }
    PartitionRow parsed;
    parsed.partition = row["partition"].get<std::uint32_t>();
    for (const nlohmann::json& sm : row["sms"]) {
      if (is_sm_id(sm)) parsed.sms.push_back(sm.get<std::uint32_t>());
    }
    rows.push_back(std::move(parsed));
  }
  return rows;
}

std::map<std::uint32_t, std::optional<std::uint32_t>> partition_of_each_sm(const Property& map) {
  std::map<std::uint32_t, std::optional<std::uint32_t>> sms;
  for (const PartitionRow& row : partition_rows(map)) {
    for (const std::uint32_t sm : row.sms) sms[sm] = row.partition;
  }
  if (map.evidence.contains("unclear") && map.evidence["unclear"].is_array()) {
    for (const nlohmann::json& sm : map.evidence["unclear"]) {
      if (is_sm_id(sm)) sms[sm.get<std::uint32_t>()] = std::nullopt;
    }
  }
  return sms;
}

}  // namespace memtopo
