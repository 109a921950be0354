#pragma once
// The simulated device memtopo names in its hint when no GPU is usable (--sim FILE runs it;
// memtopo never runs it in place of a GPU).
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
