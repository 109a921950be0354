#pragma once
// A full default discovery on a simulated device, as `memtopo --sim FILE` runs it: the device
// facts and the API's element facts first, then every probe in run order through the probe
// runner (so that whatever the runner applies to findings applies here too).
#include <cstdint>
#include <map>
#include <string>

#include "model/topology.hpp"

namespace memtopo::validation {

struct DiscoveryRun {
  Topology topology;
  std::map<std::string, std::string> not_ok;  // probe id -> status and reason (skipped, failed)
  double seconds = 0;      // wall time of the probes
  double cpu_seconds = 0;  // CPU time of the whole run, loading the description included
  std::uint64_t loads = 0;
  std::uint64_t batches = 0;
};

// `relative_path` is a description file relative to the source tree; `seed` as --seed.
DiscoveryRun run_default_discovery(const std::string& relative_path, std::uint64_t seed = 1);

}  // namespace memtopo::validation
