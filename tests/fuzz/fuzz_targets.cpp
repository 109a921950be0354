#include "fuzz_targets.hpp"

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "backend/backend.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_peer_backend.hpp"
#include "model/json.hpp"
#include "report/compare.hpp"
#include "report/compare_render.hpp"
#include "report/console.hpp"
#include "report/export_accel_sim.hpp"
#include "report/html_report.hpp"
#include "report/markdown_report.hpp"
#include "report/run_file.hpp"

namespace memtopo::fuzz {
namespace {

// One small chase per path: enough to touch every cache, TLB and shared-memory model once.
constexpr std::uint64_t kChaseFootprintBytes = 4096;
constexpr std::uint32_t kChaseStrideBytes = 64;
constexpr std::uint32_t kChaseTimedLoads = 64;

std::vector<ChaseSpec> small_chases(const Backend& backend) {
  std::vector<ChaseSpec> specs;
  for (LoadPath path : kAllLoadPaths) {
    ChaseSpec spec;
    spec.path = path;
    spec.footprint_bytes = kChaseFootprintBytes;
    spec.stride_bytes = kChaseStrideBytes;
    spec.timed_loads = kChaseTimedLoads;
    spec.sm = backend.facts().sm_count - 1;  // the last SM: every index is in range
    spec.flush_device_caches = true;
    specs.push_back(spec);
  }
  return specs;
}

// The description's multi_gpu part, through the p2p interface: every pair's access, link and a
// small copy (a pair the description cannot serve says so with PeerExperimentError).
void exercise_peers(std::string_view input) {
  constexpr int kMaxGpusExercised = 4;
  constexpr std::uint64_t kCopyBytes = 4096;
  const std::unique_ptr<PeerBackend> peers =
      make_sim_peer_backend_from_text(std::string(input), kOrigin);
  const int gpus = std::min(peers->device_count(), kMaxGpusExercised);
  for (int actor = 0; actor < gpus; ++actor) {
    for (int memory = kHostMemory; memory < gpus; ++memory) {
      if (memory == actor) continue;
      (void)peers->can_access(actor, memory);
      (void)peers->link(actor, memory);
      try {
        TransferSpec copy{
            actor, memory, TransferEngine::copy_engine, TransferDirection::read, kCopyBytes, 0, 1};
        (void)peers->run_transfer(copy);
      } catch (const PeerExperimentError&) {
      }
    }
  }
}

}  // namespace

Outcome load_sim_description(std::string_view input) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_sim_backend_from_text(std::string(input), kOrigin);
  } catch (const DescriptionError& error) {
    return {false, error.what()};
  }
  for (const ChaseSpec& spec : small_chases(*backend)) {
    try {
      backend->run(std::span<const ChaseSpec>(&spec, 1));
    } catch (const ExperimentError&) {
      // A chase the described device cannot run (4 KiB of shared memory on a device with less)
      // is the backend saying so, as it would to a probe.
    }
  }
  exercise_peers(input);
  return {true, ""};
}

Outcome read_topology_json(std::string_view input) {
  Topology topology;
  try {
    topology = topology_from_json_text(std::string(input), kOrigin);
  } catch (const TopologyJsonError& error) {
    return {false, error.what()};
  }
  // What was read is written and read again, as a report written from it would be.
  const std::string written = topology_to_json(topology).dump(2);
  const Topology again = topology_from_json_text(written, "written");
  if (again.elements.size() != topology.elements.size()) {
    throw std::logic_error("a topology read back has a different number of elements");
  }
  return {true, ""};
}

Outcome compare_runs(std::string_view input) {
  // Through a file, as the commands read it: the file name is the origin of every message.
  static const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                            ("memtopo_fuzz_" + std::to_string(getpid())) / kOrigin;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(input.data(), static_cast<std::streamsize>(input.size()));
  Topology topology;
  try {
    topology = read_run_file(file.string());
  } catch (const TopologyJsonError& error) {
    std::string message = error.what();
    // The message names the full path; the runner expects it to start with the origin.
    const std::string prefix = file.string();
    if (message.rfind(prefix, 0) == 0) message = kOrigin + message.substr(prefix.size());
    return {false, message};
  }
  Topology empty;
  for (const Topology* other : {&topology, &empty}) {
    const Comparison comparison = compare_topologies(topology, "a", *other, "b");
    (void)render_comparison_text(comparison, /*all=*/true);
    (void)comparison_to_json(comparison)
        .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  (void)render_accel_sim_config(topology);
  // What `memtopo report` and a discovery's console print, from what the reader accepted: a
  // table's cell of another type once ended here in an internal error.
  (void)render_console(topology);
  (void)render_html(topology);
  (void)render_markdown(topology, "plots");
  return {true, ""};
}

}  // namespace memtopo::fuzz
