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

// Parses JSON text, rejecting duplicate keys (which the JSON grammar allows but a description
// never needs: the second would silently win).
nlohmann::json parse_json_strictly(const std::string& text, const std::string& origin);

// A value as the user wrote it, cut short when long, for messages.
std::string json_excerpt(const nlohmann::json& value);
// "text", with the quotes, for names and keys in messages.
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

}  // namespace memtopo::sim
