#pragma once
// The SM-local line probe's size searches: the capacity at the first two prime strides that held
// their probe footprint and at the first power-of-two stride that held its own, all searches
// interleaved (every round one batch, each footprint on its own SM).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/line/stride_ladders.hpp"
#include "probes/size/size_search.hpp"

namespace memtopo {

struct CapacitySearch {
  bool power_of_two = false;     // which ladder: the power-of-two one, or the prime one
  std::size_t stride_index = 0;  // index of the stride in that ladder
  std::uint64_t stride_bytes = 0;
  std::uint64_t grid_bytes = 0;  // the search's footprints are multiples of this
  SizeSearchResult result;
};

// Searches the capacities and writes each found one into its ladder's stride.
std::vector<CapacitySearch> search_capacities(LineMeasurement& measurement, LinePlan& plan);

// The search of a ladder's stride, if it was searched.
const CapacitySearch* search_of(const std::vector<CapacitySearch>& searches, bool power_of_two,
                                std::size_t stride_index);

// The smallest edge confidence of a ladder's searches that found an edge (nullopt: none found).
std::optional<double> weakest_edge(const std::vector<CapacitySearch>& searches, bool power_of_two);

// A search as evidence: outcome, grid, capacity, edge confidence, footprints, batches.
nlohmann::json search_evidence(const CapacitySearch& search);

}  // namespace memtopo
