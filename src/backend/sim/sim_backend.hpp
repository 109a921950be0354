#pragma once
// Factory for the simulated-device backend.
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace memtopo {

// Reads a device description (format: docs/sim-format.md). Throws DescriptionError naming the
// file and the offending key for a missing file, corrupt JSON, an unknown key or a bad value.
std::unique_ptr<Backend> make_sim_backend_from_file(const std::string& path);
// The same from JSON text; `origin` names it in error messages.
std::unique_ptr<Backend> make_sim_backend_from_text(const std::string& json_text,
                                                    const std::string& origin);

}  // namespace memtopo
