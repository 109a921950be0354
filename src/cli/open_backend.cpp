#include "cli/open_backend.hpp"

#include "backend/cuda/cuda_backend.hpp"
#include "backend/sim/sim_backend.hpp"
#include "cli/bundled_sim.hpp"

namespace memtopo {
namespace {

OpenedBackend open_simulated(const std::string& path) {
  OpenedBackend opened;
  opened.backend = make_sim_backend_from_file(path);
  opened.simulated = true;
  opened.sim_file = path;
  return opened;
}

}  // namespace

OpenedBackend open_backend(const Options& options, const BeforeContext& before_context) {
  if (!options.sim_file.empty()) return open_simulated(options.sim_file);
  try {
    OpenedBackend opened;
    opened.backend = make_cuda_backend(options.device, before_context);
    return opened;
  } catch (const NoDeviceError& error) {
    // A device the user named must be that device; only the default may become a simulation.
    if (options.device_given) throw;
    auto bundled = find_bundled_sim();
    if (!bundled) {
      std::string looked;
      for (const auto& candidate : bundled_sim_candidates()) looked += " " + candidate.string();
      throw NoDeviceError(std::string(error.what()) +
                          " (the bundled simulated device was not found either; looked at" +
                          looked + ")");
    }
    OpenedBackend opened = open_simulated(bundled->string());
    opened.fallback_reason = error.what();
    return opened;
  }
}

}  // namespace memtopo
