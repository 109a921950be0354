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

// One property in the form topology_to_json writes it ({value, unit, source, method, ...}), for
// documents that hold properties outside a topology (the p2p pairs, model/p2p.hpp).
nlohmann::ordered_json property_json(const Property& property);

}  // namespace memtopo
