#pragma once
// What a property's value and evidence must look like in a run read back from JSON, so that
// every reader of the model (the console, HTML and markdown reports, compare, the Accel-Sim
// export, studies with --topology) can take what it reads as the type it expects: checked
// once, by the topology reader, instead of by each reader (or not at all: a table row's
// "method": false ended `memtopo report` in an internal error).
//
// Only the keys memtopo writes are checked, and only their type and range; keys it does not
// know are left alone, so that later versions can add keys.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace memtopo {

// Reports a problem at `where` (a path below the property: "value[1].tlb[1]") and does not
// return (it throws).
using ShapeFailure = std::function<void(const std::string& where, const std::string& what)>;

// Checks the value and evidence of the property `name` (any element); calls `fail` at the
// first value of the wrong type or out of range.
void check_property_shape(const std::string& name, const nlohmann::ordered_json& value,
                          const nlohmann::ordered_json* evidence, const ShapeFailure& fail);

}  // namespace memtopo
