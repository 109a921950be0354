#pragma once
// Reading a saved run (memtopo's own --json output) from a file: the one reader `report`,
// `compare`, `export`, `study --topology` and `fleet` share.
#include <cstdint>
#include <string>
#include <vector>

#include "model/json.hpp"
#include "model/topology.hpp"

namespace memtopo {

// The largest file read (model/json.hpp).
inline constexpr std::uintmax_t kMaxRunFileBytes = kMaxTopologyTextBytes;

// Reads `path` with topology_from_json_text. A file that is missing, unreadable, too big (said
// before reading: a regular file by its size, anything else after kMaxRunFileBytes + 1 bytes),
// not text (a NUL byte ends the reading at once: /dev/zero), not JSON or not memtopo's is a
// TopologyJsonError naming the path and the reason.
Topology read_run_file(const std::string& path);

// Any memtopo document (a discovery, a multi-device run, a study), parsed but not interpreted;
// refusals as for read_run_file.
nlohmann::ordered_json read_run_document(const std::string& path);

// One GPU's run read from a file: `origin` is the path, and for a multi-device run (memtopo
// --device all) the path followed by " devices[i]".
struct RunEntry {
  std::string origin;
  Topology topology;
};

// As read_run_file, but a multi-device run is read too: one entry per GPU, in its order (`fleet`).
std::vector<RunEntry> read_run_entries(const std::string& path);

}  // namespace memtopo
