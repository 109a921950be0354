#pragma once
// The versioned JSON form of a Topology (schema_version 1), the primary machine format.
// Writing and reading live together so that a round trip is lossless and tested; `compare`
// and other readers use topology_from_json(), never their own parser.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "model/topology.hpp"

namespace memtopo {

// A document that is not valid JSON, or not a memtopo topology of a schema this build reads.
// The message names the origin (usually the file) and the JSON path of the offending key.
class TopologyJsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ordered_json keeps keys in the order written (schema_version first, properties in the
// order probes found them), which is what a person reading the file expects.
nlohmann::ordered_json topology_to_json(const Topology& topology);

// Reads a document written by topology_to_json (this or an older schema version). Keys this
// version does not know are ignored, so that later versions can add keys; a known key of the
// wrong type, a missing required key or a newer schema_version is a TopologyJsonError.
Topology topology_from_json(const nlohmann::ordered_json& document, const std::string& origin);

// The largest JSON text read: a discovery's JSON is well under 10 MiB; a bigger one is not ours.
inline constexpr std::size_t kMaxTopologyTextBytes = std::size_t{256} << 20;

// Parses JSON text first (model/json_text.hpp: a NUL byte, trailing garbage or a duplicate key
// is corrupt); corrupt JSON is a TopologyJsonError naming `origin` and the position.
Topology topology_from_json_text(const std::string& text, const std::string& origin);
// Its first step: the text parsed as JSON (any memtopo document), errors as above.
nlohmann::ordered_json parse_run_document(const std::string& text, const std::string& origin);

// One property in the form topology_to_json writes it ({value, unit, source, method, ...}), for
// documents that hold properties outside a topology (the p2p pairs, model/p2p.hpp).
nlohmann::ordered_json property_json(const Property& property);

// Reads property_json's form back (the property named `name`); a missing or mistyped key is a
// TopologyJsonError naming `origin`.
Property property_from_json_value(const nlohmann::ordered_json& value, const std::string& name,
                                  const std::string& origin);
// Reads a run object (topology_to_json's "run", or a multi-device run's) the same way.
RunInfo run_info_from_json(const nlohmann::ordered_json& run, const std::string& origin);

// One mode in the form topology_to_json writes it in a property's `modes`: {name, value, share,
// confidence, spread, confidence_factors}. The latency-pattern rows (dram.latency_patterns) list
// their modes in this form too.
nlohmann::ordered_json mode_json(const Mode& mode);

// Reads mode_json's form, and the form rows of earlier runs have (cycles, share, p5_cycles,
// p95_cycles, samples); a known key of the wrong type is a TopologyJsonError naming `where`.
Mode mode_from_json(const nlohmann::json& value, const std::string& where);

}  // namespace memtopo
