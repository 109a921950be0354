#pragma once
// Reads a simulated device description (format: docs/sim-format.md) and checks every key.
#include <string>

#include "backend/sim/description.hpp"

namespace memtopo::sim {

// Parses and validates JSON text; `origin` names it in messages. Throws DescriptionError
// "<origin>: <JSON path>: <reason>" for corrupt JSON, an unknown or duplicate key, a missing
// required key, a value of the wrong type or an inconsistent value.
SimDescription parse_description(const std::string& json_text, const std::string& origin);

// The same for a file; a missing or unreadable file is a DescriptionError naming it.
SimDescription load_description_file(const std::string& path);

}  // namespace memtopo::sim
