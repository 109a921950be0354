#pragma once
// The simulated device memtopo falls back to when no GPU is visible.
#include <filesystem>
#include <optional>
#include <vector>

namespace memtopo {

// Where the bundled description may be, in the order searched: the install location relative
// to the running binary (<prefix>/share/memtopo/sims/), then the source tree it was built from.
std::vector<std::filesystem::path> bundled_sim_candidates();

// The first candidate that exists.
std::optional<std::filesystem::path> find_bundled_sim();

}  // namespace memtopo
