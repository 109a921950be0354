#pragma once
// An experiment a sink may keep past the call that recorded it (run/trace_sink.hpp's records
// only refer to what the run holds): copies of its spec and result, for a sink that writes
// them later on another thread (cli/trace_recorder.hpp).
#include <cstddef>
#include <type_traits>
#include <variant>

#include "run/trace_sink.hpp"

namespace memtopo {

template <typename Spec, typename Result>
struct Owned {
  Spec spec;
  Result result;
};

namespace owned_detail {
template <typename Variant>
struct OwnedOf;
template <typename... Records>
struct OwnedOf<std::variant<Records...>> {
  using type =
      std::variant<Owned<typename Records::SpecType, typename Records::ResultType>...>;
};
}  // namespace owned_detail

// One alternative per kind of Experiment, in the same order.
using OwnedExperiment = owned_detail::OwnedOf<Experiment>::type;

inline OwnedExperiment own(const Experiment& experiment) {
  return std::visit(
      [](const auto& record) -> OwnedExperiment {
        using Record = std::decay_t<decltype(record)>;
        return Owned<typename Record::SpecType, typename Record::ResultType>{record.spec,
                                                                             record.result};
      },
      experiment);
}

// The record of `owned`, referring into it.
inline Experiment view(const OwnedExperiment& owned) {
  return std::visit(
      [](const auto& copy) -> Experiment {
        using Copy = std::decay_t<decltype(copy)>;
        return Recorded<decltype(Copy::spec), decltype(Copy::result)>{copy.spec, copy.result};
      },
      owned);
}

namespace owned_detail {
// The bytes of the vectors a spec or result may hold many of (records, chains' indices).
template <typename T>
std::size_t bulk_bytes(const T& part) {
  std::size_t bytes = 0;
  if constexpr (requires { part.cycles.size(); }) bytes += part.cycles.size() * 4;
  if constexpr (requires { part.indices.size(); }) bytes += part.indices.size() * 8;
  if constexpr (requires { part.wide_indices.size(); }) bytes += part.wide_indices.size() * 8;
  return bytes;
}
}  // namespace owned_detail

// About how many bytes a copy holds: its records and chains, the bulk of any experiment.
inline std::size_t approximate_bytes(const OwnedExperiment& owned) {
  return std::visit(
      [](const auto& copy) {
        return sizeof(copy) + owned_detail::bulk_bytes(copy.spec) +
               owned_detail::bulk_bytes(copy.result);
      },
      owned);
}

}  // namespace memtopo
