#pragma once
// What a property's value means beside its number, as the judging readers (compare, fleet) see
// it: the spread of the value itself, the resolution of a search, the modes after the headline.
// docs/compare.md states why each is what it is.
#include <optional>
#include <vector>

#include "model/topology.hpp"

namespace memtopo {

// `value` as JSON for the judging readers' documents: the number, or null where there is none or
// it is not finite.
nlohmann::ordered_json optional_number(const std::optional<double>& value);

// A value that was found (not inconclusive, not null).
bool is_conclusive(const Property& property);

// The value as a number, or nothing when it is not one.
std::optional<double> number_of(const nlohmann::json& value);

// The spread of the value itself, or nothing: a spread describes a value when its median is that
// value (latencies, bandwidths); a size or a sector keeps the latencies of its search as its
// spread, which say nothing about the size.
std::optional<Spread> spread_of_value(const Property& property, double value);

// A search's final bracket [low, high] (sizes): the edge lies somewhere inside it, so two
// values closer than its width are the same measurement.
std::optional<double> resolution_of(const Property& property);

// A value's modes after its headline (the far mode of a near/far latency) as properties of
// their own, "latency (far mode)", so that each is judged by its own spread.
std::vector<Property> other_modes(const Property& property);

}  // namespace memtopo
