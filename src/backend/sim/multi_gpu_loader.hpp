#pragma once
// Reads the optional "multi_gpu" object of a simulated device description.
#include <nlohmann/json.hpp>

#include "backend/sim/multi_gpu.hpp"
#include "backend/sim/strict_json.hpp"

namespace memtopo::sim {

// Parses and validates `value`; throws DescriptionError naming the key and the reason.
MultiGpuDescription read_multi_gpu(const nlohmann::json& value, const JsonPlace& place);

}  // namespace memtopo::sim
