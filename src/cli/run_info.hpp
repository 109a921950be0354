#pragma once
// What a report says about the run itself: tool version, when, where, with which arguments.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

// ISO 8601 in UTC with second precision: 2025-03-01T10:00:00Z.
std::string utc_timestamp(std::chrono::system_clock::time_point when);

// This machine's host name, or "" when it cannot be read.
std::string host_name();

// The Slurm task this process is (SLURM_JOB_ID, SLURM_PROCID, SLURM_LOCALID), or none when
// SLURM_JOB_ID is unset or empty. An id that is not a whole number is left out.
std::optional<SlurmTask> slurm_task_from_environment();

// A RunInfo with version, git describe, timestamp (now), host, Slurm task and `arguments` filled
// in.
RunInfo start_run_info(const std::vector<std::string>& arguments);

}  // namespace memtopo
