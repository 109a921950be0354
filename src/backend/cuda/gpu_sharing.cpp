#include "backend/cuda/gpu_sharing.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace memtopo {

namespace {

constexpr const char* kDefaultMpsPipeDirectory = "/tmp/nvidia-mps";

bool listed(const std::vector<GpuProcess>& processes, std::uint32_t pid) {
  for (const GpuProcess& process : processes) {
    if (process.pid == pid) return true;
  }
  return false;
}

}  // namespace

std::set<std::uint32_t> own_gpu_pids(std::uint32_t own_pid, const std::vector<GpuProcess>& before,
                                     const std::vector<GpuProcess>& after) {
  if (listed(after, own_pid)) return {own_pid};
  std::set<std::uint32_t> appeared;
  for (const GpuProcess& process : after) {
    if (!listed(before, process.pid)) appeared.insert(process.pid);
  }
  if (appeared.size() == 1) return appeared;
  return {};
}

std::vector<GpuProcess> other_gpu_processes(const std::vector<GpuProcess>& listed_processes,
                                            const std::set<std::uint32_t>& own) {
  std::vector<GpuProcess> others;
  for (const GpuProcess& process : listed_processes) {
    if (own.count(process.pid) || process.name == kMpsServerName) continue;
    if (listed(others, process.pid)) continue;
    others.push_back(process);
  }
  return others;
}

std::string describe_mps(bool nvml_known, std::size_t mps_clients,
                         std::optional<std::uint32_t> server_pid,
                         const std::optional<std::string>& control_pipe) {
  std::string seen;
  const auto add = [&seen](const std::string& what) { seen += (seen.empty() ? "" : "; ") + what; };
  if (server_pid) add("MPS server pid " + std::to_string(*server_pid));
  if (mps_clients > 0) add(std::to_string(mps_clients) + " MPS client(s) listed by NVML");
  if (control_pipe) add("control pipe " + *control_pipe);
  if (!seen.empty()) return "active (" + seen + ")";
  return nvml_known ? "inactive" : "";
}

std::optional<std::string> mps_control_pipe() {
  const char* directory = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  const std::filesystem::path pipe =
      std::filesystem::path(directory && *directory ? directory : kDefaultMpsPipeDirectory) /
      "control";
  std::error_code error;
  if (!std::filesystem::exists(pipe, error)) return std::nullopt;
  return pipe.string();
}

std::string format_gpu_uuid(const unsigned char (&bytes)[16], const char* prefix) {
  // 8-4-4-4-12 hexadecimal digits.
  constexpr int kGroupEnds[] = {4, 6, 8, 10, 16};
  std::string text = prefix;
  int byte = 0;
  for (const int end : kGroupEnds) {
    if (byte > 0) text += '-';
    for (; byte < end; ++byte) {
      char digits[3];
      std::snprintf(digits, sizeof digits, "%02x", bytes[byte]);
      text += digits;
    }
  }
  return text;
}

}  // namespace memtopo
