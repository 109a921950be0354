#include "cli/bundled_sim.hpp"

#include <system_error>

namespace memtopo {
namespace {

constexpr const char* kBundledName = "hopper-like.json";

// The directory of the running binary, from /proc (Linux, the only platform CUDA-side tools
// like this one target); empty when it cannot be read.
std::filesystem::path binary_directory() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : self.parent_path();
}

}  // namespace

std::vector<std::filesystem::path> bundled_sim_candidates() {
  std::vector<std::filesystem::path> candidates;
  if (std::filesystem::path bin = binary_directory(); !bin.empty()) {
    candidates.push_back(bin.parent_path() / "share" / "memtopo" / "sims" / kBundledName);
  }
  candidates.push_back(std::filesystem::path(MEMTOPO_SOURCE_DIR) / "sims" / kBundledName);
  return candidates;
}

std::optional<std::filesystem::path> find_bundled_sim() {
  for (const auto& candidate : bundled_sim_candidates()) {
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate;
  }
  return std::nullopt;
}

}  // namespace memtopo
