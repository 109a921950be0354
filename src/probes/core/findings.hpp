#pragma once
// The one lookup for what earlier probes found. A probe plans from another probe's finding only
// when it is usable: found by this run (measured or derived, never an API fact: those come from
// ctx.backend.facts()), conclusive (not inconclusive, not a bound) and a finite number.
#include <cstdint>
#include <functional>
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
// ran without a conclusion leaves one, a probe that did not apply leaves none. A bound read here
// is a bound read as the value: a plan from it is at most even odds (inheritance.hpp).
const Property* any_finding(const Topology& topology, std::string_view element,
                            std::string_view property);

// The property when it is a bound on `side` (Bound::lower: the value is at least this), for a
// plan that holds wherever the value lies on that side: a stride of at least half an upper bound
// on the line, cluster sizes up to a lower bound on the largest. Such a read caps nothing.
const Property* bound_finding(const Topology& topology, std::string_view element,
                              std::string_view property, Bound side);

// Whether a probe left the property at all (a probe that did not apply leaves none): an
// existence check, not a read of its value.
bool finding_exists(const Topology& topology, std::string_view element, std::string_view property);

// Writes a computed confidence into a finding: its value as `confidence`, its factors as
// `evidence.confidence_factors` (rule, value, inputs), which reporters read to say why a value
// is low. The only way probes set a confidence.
void set_confidence(Property& property, const Confidence& confidence);

// A measured property without a conclusion: value null, inconclusive, `why` as its note, no
// confidence. What a probe reports where nothing could be measured, with the reason.
Property inconclusive_property(const std::string& name, const std::string& unit,
                               const std::string& method, const std::string& why);

// Writes `property` of `element` as measured without a conclusion: value null, inconclusive,
// `why` as its note, no confidence (a measurement without a conclusion is not a low confidence).
// What a probe leaves when what it plans from was inconclusive.
void set_inconclusive(Topology& topology, const std::string& element, const std::string& property,
                      const std::string& method, const std::string& why);

// ---- Who read what -----------------------------------------------------------------------------
// While a FindingReadWatch is alive for a topology, every lookup above that hands a property over
// (any_finding and bound_finding, and the others whenever they return a value; not
// finding_exists) reports it to `on_read` with its element id and how it was read. The runner
// learns this way which findings a probe's plan read (inheritance.hpp); the property test checks
// the runner with a watch of its own. Watches of one topology stack; reading a finding past this
// lookup (Element::find) is not seen, so a probe reads another probe's findings only here.
enum class FindingRead {
  value,       // any_finding, conclusive_finding, finding_value, finding_count
  bound_side,  // bound_finding: only the side of the bound
};
using FindingReader =
    std::function<void(std::string_view element, const Property& property, FindingRead how)>;

class FindingReadWatch {
 public:
  FindingReadWatch(const Topology& topology, FindingReader on_read);
  ~FindingReadWatch();
  FindingReadWatch(const FindingReadWatch&) = delete;
  FindingReadWatch& operator=(const FindingReadWatch&) = delete;

 private:
  std::uint64_t id_;
};

}  // namespace memtopo
