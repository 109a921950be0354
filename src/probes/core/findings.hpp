#pragma once
// The one lookup for what earlier probes found. A probe plans from another probe's finding only
// when it is usable: found by this run (measured or derived, never an API fact: those come from
// ctx.backend.facts()), conclusive (not inconclusive, not a bound) and a finite number.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/confidence.hpp"
#include "model/topology.hpp"

namespace memtopo {

// The property when it is usable as above; nullptr otherwise.
const Property* conclusive_finding(const Topology& topology, std::string_view element,
                                   std::string_view property);

// Its value, when usable.
std::optional<double> finding_value(const Topology& topology, std::string_view element,
                                    std::string_view property);

// Its value as a positive whole count (bytes, lines, ways ...), when usable and above zero.
std::optional<std::uint64_t> finding_count(const Topology& topology, std::string_view element,
                                           std::string_view property);

// The property whatever it says (inconclusive, a bound, an API fact), or nullptr: a probe that
// ran without a conclusion leaves one, a probe that did not apply leaves none.
const Property* any_finding(const Topology& topology, std::string_view element,
                            std::string_view property);

// Writes a computed confidence into a finding: its value as `confidence`, its factors as
// `evidence.confidence_factors` (rule, value, inputs), which reporters read to say why a value
// is low. The only way probes set a confidence.
void set_confidence(Property& property, const Confidence& confidence);

// Writes `property` of `element` as measured without a conclusion: value null, inconclusive,
// `why` as its note, no confidence (a measurement without a conclusion is not a low confidence).
// What a probe leaves when what it plans from was inconclusive.
void set_inconclusive(Topology& topology, const std::string& element, const std::string& property,
                      const std::string& method, const std::string& why);

}  // namespace memtopo
