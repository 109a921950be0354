#pragma once
// Strict reading of a JSON document: every problem is reported as a DescriptionError that names
// the document (its origin), the JSON path of the value and the reason, e.g.
//   hopper.json: caches[1]: unknown key "wayz"
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace memtopo::sim {

// Where a value sits: the document and the JSON path inside it ("" for the document itself).
class JsonPlace {
 public:
  JsonPlace(std::string origin, std::string path)
      : origin_(std::move(origin)), path_(std::move(path)) {}

  JsonPlace key(std::string_view name) const;
  JsonPlace item(std::size_t index) const;
  // Throws DescriptionError "<origin>: <path>: <reason>".
  [[noreturn]] void fail(const std::string& reason) const;

 private:
  std::string origin_;
  std::string path_;
};

// Parses JSON text (model/json_text.hpp: in linear time), rejecting duplicate keys (which the
// JSON grammar allows but a description never needs: the second would silently win), a NUL
// byte and anything but whitespace after the document.
nlohmann::json parse_json_strictly(const std::string& text, const std::string& origin);

// A value as the user wrote it, cut to 40 characters, for messages.
std::string json_excerpt(const nlohmann::json& value);
// "text", with the quotes, cut to 40 characters, for names and keys in messages.
std::string in_quotes(std::string_view text);

// Typed reads of one value; a value of another type fails with what was expected and found.
std::uint64_t read_uint(const nlohmann::json& value, const JsonPlace& place,
                        std::uint64_t max = UINT64_MAX);
double read_number(const nlohmann::json& value, const JsonPlace& place);
std::string read_string(const nlohmann::json& value, const JsonPlace& place);
const nlohmann::json& read_array(const nlohmann::json& value, const JsonPlace& place);

// A JSON object whose keys must all be among `allowed` (checked on construction).
class StrictObject {
 public:
  StrictObject(const nlohmann::json& value, JsonPlace place,
               std::initializer_list<std::string_view> allowed);

  bool has(std::string_view key) const;
  // The value of a required key; fails naming the key when it is absent.
  const nlohmann::json& required(std::string_view key) const;
  JsonPlace place(std::string_view key) const { return place_.key(key); }
  // Fails about the value of `key`.
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const {
    place(key).fail(reason);
  }

  std::uint64_t uint(std::string_view key, std::uint64_t max = UINT64_MAX) const;
  std::uint64_t uint_or(std::string_view key, std::uint64_t fallback,
                        std::uint64_t max = UINT64_MAX) const;
  std::string string(std::string_view key) const;

 private:
  const nlohmann::json& value_;
  JsonPlace place_;
};

// Reads of one key of an object that fail naming the key and the reason.
std::uint32_t read_u32(const StrictObject& object, std::string_view key,
                       std::uint64_t max = UINT32_MAX);
// At least 1.
std::uint32_t read_positive_u32(const StrictObject& object, std::string_view key,
                                std::uint64_t max = UINT32_MAX);
// A latency, an extra or a noise amplitude, in cycles: at most limits::kMaxCycles; the _or
// form is 0 when the key is absent.
std::uint32_t read_cycles(const StrictObject& object, std::string_view key);
std::uint32_t read_cycles_or(const StrictObject& object, std::string_view key);
// `value`, which was read from `key`, when it is a power of two.
std::uint64_t read_power_of_two(const StrictObject& object, std::string_view key,
                                std::uint64_t value);
// A list (`place` names it) of at most `max` entries.
const nlohmann::json& read_bounded_array(const nlohmann::json& value, const JsonPlace& place,
                                         std::size_t max);
// A name as reports print it: not empty, at most limits::kMaxNameBytes, control characters
// escaped (printable_text), so that it cannot recolour or clear the terminal of a report.
std::string read_printable_name(const StrictObject& object, std::string_view key);

}  // namespace memtopo::sim
