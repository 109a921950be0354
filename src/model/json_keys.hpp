#pragma once
// The keys every element object of the topology JSON has (json_writer.cpp, json_reader.cpp):
// any other key of an element is a property. Internal to src/model.
#include <string>

namespace memtopo::json_keys {

inline constexpr const char* kElementKeys[] = {"id", "kind", "scope", "load_paths"};

inline bool is_element_key(const std::string& key) {
  for (const char* reserved : kElementKeys) {
    if (key == reserved) return true;
  }
  return false;
}

}  // namespace memtopo::json_keys
