#include "cli/open_backend.hpp"

#include <cstdio>
#include <filesystem>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/sim/sim_backend.hpp"
#include "cli/bundled_sim.hpp"
#include "cli/exit_codes.hpp"
#include "model/printable_text.hpp"

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
  OpenedBackend opened;
  opened.backend = make_cuda_backend(options.device, before_context);
  return opened;
}

std::optional<OpenedBackend> open_device(const Options& options, GpuClaim& claim, std::ostream& err,
                                         int& exit) {
  try {
    return open_backend(options,
                        [&](const std::string& uuid) { lock_gpu(uuid, options, err, claim); });
  } catch (const GpuBusyError& error) {
    char waited[32];
    std::snprintf(waited, sizeof waited, "%g", options.wait_seconds.value_or(0));
    err << "memtopo: " << error.what() << " after waiting " << waited
        << " s (--wait); try again later, or pick another GPU with --device N.\n";
    exit = exit_code::gpu_in_use;
  } catch (const LockWaitInterrupted& error) {
    err << "memtopo: " << error.what() << "; nothing was measured.\n";
    exit = exit_code::interrupted;
  } catch (const NoDeviceError& error) {
    // The backend's message already says what to check (nvidia-smi, CUDA_VISIBLE_DEVICES).
    err << "memtopo: no usable CUDA device: " << error.what() << "\n";
    if (options.device_given) err << "  Pick a device index that nvidia-smi lists.\n";
    if (const auto bundled = find_bundled_sim())
      err << "  The bundled simulated device: --sim " << printable_text(bundled->string()) << "\n";
    err << "  memtopo never measures a simulated device in place of a GPU.\n";
    exit = exit_code::no_device;
  } catch (const DescriptionError& error) {
    err << "memtopo: cannot use the simulated device description: " << error.what()
        << "\n  Fix the file or name another with --sim; docs/ describes the format.\n";
    exit = exit_code::bad_input;
  } catch (const OutOfMemoryError& error) {
    err << "memtopo: out of device memory while opening the device: " << error.what()
        << "\n  Free the GPU (nvidia-smi lists its processes) and try again.\n";
    exit = exit_code::out_of_memory;
  }
  return std::nullopt;
}

bool sim_file_exists(const Options& options, const std::string& program, std::ostream& err) {
  if (options.sim_file.empty() || std::filesystem::exists(options.sim_file)) return true;
  err << program << ": simulated device description " << printable_text(options.sim_file)
      << " does not exist; check the path given to --sim.\n";
  return false;
}

}  // namespace memtopo
