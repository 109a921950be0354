#pragma once
// Who else is on the GPU: which of NVML's processes are memtopo itself, which are others, and
// how MIG and MPS are set up. Host logic on NVML's answers, tested without a GPU.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/device_conditions.hpp"

namespace memtopo {

// The process name of the MPS server, which holds the contexts of MPS clients: not a user of
// the GPU by itself.
inline constexpr const char* kMpsServerName = "nvidia-cuda-mps-server";

// Which PIDs in NVML's list are memtopo's own, from the list before memtopo created its
// context and the list after. NVML reports PIDs as the host sees them: in a container,
// getpid() is another number, so when `own_pid` is not listed, the one process that appeared
// with the context is memtopo. Several that appeared at once cannot be told apart: none of
// them is taken for memtopo (they are reported as others, the safe side).
std::set<std::uint32_t> own_gpu_pids(std::uint32_t own_pid, const std::vector<GpuProcess>& before,
                                     const std::vector<GpuProcess>& after);

// The processes of `listed` that are neither memtopo's (`own`) nor the MPS server, each pid once.
std::vector<GpuProcess> other_gpu_processes(const std::vector<GpuProcess>& listed,
                                            const std::set<std::uint32_t>& own);

// What the device facts say about MPS: "active (...)" with how it was seen, "inactive", or ""
// when it cannot be told (no NVML and no control pipe). `mps_clients` are the processes NVML
// lists as MPS clients, `server_pid` the MPS server's when NVML lists it among the compute
// processes, `control_pipe` the MPS control pipe when it exists (see mps_control_pipe).
std::string describe_mps(bool nvml_known, std::size_t mps_clients,
                         std::optional<std::uint32_t> server_pid,
                         const std::optional<std::string>& control_pipe);

// The MPS control daemon's pipe ($CUDA_MPS_PIPE_DIRECTORY or /tmp/nvidia-mps, then "control")
// when it exists: CUDA contexts of this user then go through MPS.
std::optional<std::string> mps_control_pipe();

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (as nvidia-smi -L writes it) from the 16 bytes of
// a CUDA device UUID.
std::string format_gpu_uuid(const unsigned char (&bytes)[16], const char* prefix = "GPU-");

}  // namespace memtopo
