#pragma once
// A checked reader of one JSON object of a memtopo document: every field read by its type, every
// error naming the origin and the JSON path ("elements[2].size.value: expected a number").
// json_reader.cpp reads a Topology with it.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json.hpp"
#include "model/printable_text.hpp"

namespace memtopo::json_reading {

using ojson = nlohmann::ordered_json;

// The longest value quoted in an error.
inline constexpr std::size_t kMaxQuotedValue = 40;

inline const char* type_name(const ojson& value) {
  return value.type_name();
}

// Reads the fields of one JSON object, naming `path` (e.g. "elements[2].size") in every error.
class ObjectReader {
 public:
  ObjectReader(const ojson& object, std::string path, std::string origin)
      : object_(object), path_(std::move(path)), origin_(std::move(origin)) {
    if (!object_.is_object()) {
      throw TopologyJsonError(
          printable_text(origin_ + ": " + (path_.empty() ? "document" : path_)) +
          ": expected an object, found " + type_name(object_));
    }
  }

  const ojson& object() const { return object_; }
  const std::string& path() const { return path_; }
  // A reader for the object under `key` (or any value reached from here, named by `key`).
  ObjectReader child(const ojson& value, const std::string& key) const {
    return ObjectReader(value, path_of(key), origin_);
  }
  ObjectReader child(const std::string& key) const { return child(required(key), key); }
  std::string path_of(const std::string& key) const {
    // A key from the file (a property's name) may be a megabyte long: cut, as values are.
    const std::string shown = key.size() > kMaxQuotedValue ? cut(key) : key;
    return path_.empty() ? shown : path_ + "." + shown;
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    // Keys and values come from the file: printed with control characters escaped.
    throw TopologyJsonError(printable_text(origin_ + ": " + path_of(key) + ": " + what));
  }

  // A problem with the whole document (what it is), not with one of its keys.
  [[noreturn]] void fail_document(const std::string& what) const {
    throw TopologyJsonError(printable_text(origin_ + ": " + what));
  }

  // nullptr when absent.
  const ojson* find(const std::string& key) const {
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  const ojson& required(const std::string& key) const {
    const ojson* value = find(key);
    if (!value) fail(key, "required key is missing");
    return *value;
  }

  std::string string(const std::string& key, bool is_required = false) const {
    const ojson* value = is_required ? &required(key) : find(key);
    if (!value) return {};
    if (!value->is_string())
      fail(key, std::string("expected a string, found ") + type_name(*value));
    return value->get<std::string>();
  }

  bool boolean(const std::string& key) const {
    const ojson* value = find(key);
    if (!value) return false;
    if (!value->is_boolean())
      fail(key, std::string("expected true or false, found ") + type_name(*value));
    return value->get<bool>();
  }

  // A number; null reads as NaN because the writer writes non-finite numbers as null.
  std::optional<double> number(const std::string& key) const {
    const ojson* value = find(key);
    if (!value) return std::nullopt;
    if (value->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!value->is_number())
      fail(key, std::string("expected a number, found ") + type_name(*value));
    return value->get<double>();
  }

  // An optional number where null means "not known" (clocks that could not be read).
  std::optional<double> nullable_number(const std::string& key) const {
    const ojson* value = find(key);
    if (!value || value->is_null()) return std::nullopt;
    return number(key);
  }

  template <typename Integer>
  std::optional<Integer> integer(const std::string& key) const {
    const ojson* value = find(key);
    if (!value || value->is_null()) return std::nullopt;
    constexpr bool is_unsigned = std::numeric_limits<Integer>::min() == 0;
    if (!value->is_number_integer() || (is_unsigned && !value->is_number_unsigned())) {
      fail(key,
           std::string(is_unsigned ? "expected a non-negative integer" : "expected an integer") +
               ", found " + json_text(*value));
    }
    if constexpr (is_unsigned) {
      auto raw = value->get<std::uint64_t>();
      if (raw > static_cast<std::uint64_t>(std::numeric_limits<Integer>::max())) {
        fail(key, "integer " + json_text(*value) + " is too large");
      }
      return static_cast<Integer>(raw);
    } else {
      auto raw = value->get<std::int64_t>();
      if (value->is_number_unsigned() && raw < 0)
        fail(key, "integer " + json_text(*value) + " is too large");
      if (raw < static_cast<std::int64_t>(std::numeric_limits<Integer>::min()) ||
          raw > static_cast<std::int64_t>(std::numeric_limits<Integer>::max())) {
        fail(key, "integer " + json_text(*value) + " is out of range");
      }
      return static_cast<Integer>(raw);
    }
  }

  template <typename Integer>
  void read_integer(const std::string& key, Integer& target) const {
    if (auto value = integer<Integer>(key)) target = *value;
  }

  std::vector<std::string> strings(const std::string& key) const {
    const ojson* value = find(key);
    if (!value) return {};
    if (!value->is_array())
      fail(key, std::string("expected a list of strings, found ") + type_name(*value));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < value->size(); ++i) {
      if (!(*value)[i].is_string()) {
        fail(key + "[" + std::to_string(i) + "]",
             std::string("expected a string, found ") + type_name((*value)[i]));
      }
      out.push_back((*value)[i].get<std::string>());
    }
    return out;
  }

  const ojson* array(const std::string& key, bool is_required) const {
    const ojson* value = is_required ? &required(key) : find(key);
    if (value && !value->is_array()) {
      fail(key, std::string("expected a list, found ") + type_name(*value));
    }
    return value;
  }

 private:
  // A value as the file has it, cut short: a message must stay readable whatever the value.
  static std::string json_text(const ojson& value) {
    return cut(value.dump(-1, ' ', false, ojson::error_handler_t::replace));
  }
  static std::string cut(const std::string& text) {
    return text.size() > kMaxQuotedValue ? text.substr(0, kMaxQuotedValue - 3) + "..." : text;
  }

  const ojson& object_;
  std::string path_;
  std::string origin_;
};

}  // namespace memtopo::json_reading
