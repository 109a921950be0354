#include "backend/sim/strict_json.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include "backend/backend.hpp"
#include "backend/sim/description.hpp"
#include "model/json_text.hpp"
#include "model/printable_text.hpp"

namespace memtopo::sim {

using nlohmann::json;

namespace {

// The longest value, key or name quoted in a message (docs/sim-format.md promises 40).
constexpr std::size_t kMaxQuoted = 40;

std::string shortened(std::string text, std::size_t limit) {
  if (text.size() > limit) text = text.substr(0, limit - 3) + "...";
  return text;
}

}  // namespace

std::string in_quotes(std::string_view text) {
  return "\"" + printable_text(shortened(std::string(text), kMaxQuoted)) + "\"";
}

std::string json_excerpt(const json& value) {
  // dump() escapes C0 controls but not DEL or C1 controls.
  return printable_text(
      shortened(value.dump(-1, ' ', false, json::error_handler_t::replace), kMaxQuoted));
}

JsonPlace JsonPlace::key(std::string_view name) const {
  const std::string printable = printable_text(shortened(std::string(name), kMaxQuoted));
  return JsonPlace(origin_, path_.empty() ? printable : path_ + "." + printable);
}

JsonPlace JsonPlace::item(std::size_t index) const {
  return JsonPlace(origin_, path_ + "[" + std::to_string(index) + "]");
}

void JsonPlace::fail(const std::string& reason) const {
  throw DescriptionError(origin_ + ": " + (path_.empty() ? "" : path_ + ": ") + reason);
}

json parse_json_strictly(const std::string& text, const std::string& origin) {
  if (text.size() > limits::kMaxDescriptionBytes) {
    throw DescriptionError(origin + ": " + std::to_string(text.size()) +
                           " bytes; a description is at most " +
                           std::to_string(limits::kMaxDescriptionBytes) + " bytes");
  }
  try {
    return parse_json_text<json>(text, limits::kMaxNesting);
  } catch (const JsonTextError& error) {
    switch (error.kind()) {
      case JsonTextError::Kind::syntax:
        // A syntax error names the line, column and byte; a number no double holds (1e400)
        // the number.
        throw DescriptionError(origin + ": not valid JSON: " + printable_text(error.what()));
      case JsonTextError::Kind::too_deep:
        throw DescriptionError(origin + ": " + error.what() + "; a description needs 4 levels");
      default:
        throw DescriptionError(origin + ": " + error.what());
    }
  }
}

std::uint64_t read_uint(const json& value, const JsonPlace& place, std::uint64_t max) {
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    place.fail("must not be negative, got " + json_excerpt(value));
  }
  if (!value.is_number_unsigned()) {
    place.fail("expected a non-negative integer, got " + json_excerpt(value));
  }
  const auto number = value.get<std::uint64_t>();
  if (number > max) {
    place.fail("must be at most " + std::to_string(max) + ", got " + json_excerpt(value));
  }
  return number;
}

double read_number(const json& value, const JsonPlace& place) {
  if (!value.is_number()) place.fail("expected a number, got " + json_excerpt(value));
  return value.get<double>();
}

std::string read_string(const json& value, const JsonPlace& place) {
  if (!value.is_string()) place.fail("expected a string, got " + json_excerpt(value));
  return value.get<std::string>();
}

const json& read_array(const json& value, const JsonPlace& place) {
  if (!value.is_array()) place.fail("expected a list, got " + json_excerpt(value));
  return value;
}

StrictObject::StrictObject(const json& value, JsonPlace place,
                           std::initializer_list<std::string_view> allowed)
    : value_(value), place_(std::move(place)) {
  if (!value_.is_object()) place_.fail("expected an object, got " + json_excerpt(value_));
  for (const auto& item : value_.items()) {
    const std::string& key = item.key();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string known;
    for (std::string_view name : allowed) known += (known.empty() ? "" : ", ") + std::string(name);
    place_.fail("unknown key " + in_quotes(key) + " (known keys: " + known + ")");
  }
}

bool StrictObject::has(std::string_view key) const {
  return value_.contains(std::string(key));
}

const json& StrictObject::required(std::string_view key) const {
  const auto found = value_.find(std::string(key));
  if (found == value_.end()) place_.fail("missing required key " + in_quotes(key));
  return *found;
}

std::uint64_t StrictObject::uint(std::string_view key, std::uint64_t max) const {
  return read_uint(required(key), place(key), max);
}

std::uint64_t StrictObject::uint_or(std::string_view key, std::uint64_t fallback,
                                    std::uint64_t max) const {
  return has(key) ? uint(key, max) : fallback;
}

std::string StrictObject::string(std::string_view key) const {
  return read_string(required(key), place(key));
}

std::uint32_t read_u32(const StrictObject& object, std::string_view key, std::uint64_t max) {
  return static_cast<std::uint32_t>(object.uint(key, std::min<std::uint64_t>(max, UINT32_MAX)));
}

std::uint32_t read_positive_u32(const StrictObject& object, std::string_view key,
                                std::uint64_t max) {
  const std::uint32_t value = read_u32(object, key, max);
  if (value == 0) object.fail(key, "must be at least 1");
  return value;
}

std::uint32_t read_cycles(const StrictObject& object, std::string_view key) {
  return read_u32(object, key, limits::kMaxCycles);
}

std::uint32_t read_cycles_or(const StrictObject& object, std::string_view key) {
  return object.has(key) ? read_cycles(object, key) : 0;
}

const json& read_bounded_array(const json& value, const JsonPlace& place, std::size_t max) {
  const json& list = read_array(value, place);
  if (list.size() > max) {
    place.fail("has " + std::to_string(list.size()) + " entries; at most " + std::to_string(max) +
               " are accepted");
  }
  return list;
}

std::uint64_t read_power_of_two(const StrictObject& object, std::string_view key,
                                std::uint64_t value) {
  if (!std::has_single_bit(value)) {
    object.fail(key, "must be a power of two, got " + std::to_string(value));
  }
  return value;
}

std::string read_printable_name(const StrictObject& object, std::string_view key) {
  const std::string name = object.string(key);
  if (name.empty()) object.fail(key, "must not be empty");
  if (name.size() > limits::kMaxNameBytes) {
    object.fail(key, "is " + std::to_string(name.size()) + " bytes long; at most " +
                         std::to_string(limits::kMaxNameBytes) + " are accepted");
  }
  return printable_text(name);
}

}  // namespace memtopo::sim
