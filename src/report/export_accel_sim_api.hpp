#pragma once
// The Accel-Sim options that the CUDA runtime reports rather than memtopo measures: SMs, clocks,
// shared memory per SM and per block. Marked as API values in their comments; confidence does
// not apply. docs/export.md lists them.
#include <string>
#include <vector>

#include "model/device_facts.hpp"

namespace memtopo {

// The options' text; an option whose fact the run lacks (0) goes to `not_written` as
// "name (why)".
std::string accel_sim_api_options(const DeviceFacts& device, std::vector<std::string>& not_written);

}  // namespace memtopo
