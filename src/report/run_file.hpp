#pragma once
// Reading a saved run (memtopo's own --json output) from a file, for `compare` and `export`.
#include <cstdint>
#include <string>

#include "model/json.hpp"
#include "model/topology.hpp"

namespace memtopo {

// The largest file read: a discovery's JSON is well under 10 MiB; a bigger one is not ours.
inline constexpr std::uintmax_t kMaxRunFileBytes = 256ull << 20;

// Reads `path` with topology_from_json_text. A file that is missing, unreadable, too big, not
// JSON or not memtopo's is a TopologyJsonError naming the path and the reason.
Topology read_run_file(const std::string& path);

}  // namespace memtopo
