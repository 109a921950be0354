#pragma once
// Per-set ways (unequal sets) are numbered from the start of the probe's array, whose address
// modulo sets x line the probe cannot know: a rotation of the configured list is the same cache.
#include <cstddef>

#include <nlohmann/json.hpp>

namespace memtopo::validation {

inline bool same_up_to_rotation(const nlohmann::json& truth, const nlohmann::json& found) {
  if (!truth.is_array() || !found.is_array() || truth.size() != found.size()) return false;
  for (std::size_t shift = 0; shift < truth.size(); ++shift) {
    bool all = true;
    for (std::size_t i = 0; i < truth.size() && all; ++i) {
      all = truth[(i + shift) % truth.size()] == found[i];
    }
    if (all) return true;
  }
  return false;
}

}  // namespace memtopo::validation
