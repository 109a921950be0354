#pragma once
// Ways, sets and set index of a cache whose index the overfull-set chases cannot read (a hash,
// non-LRU replacement, a size that is not a hard edge): minimal eviction sets by group testing
// (analysis/eviction_sets.hpp) for several target lines, then the index as XOR functions of
// address bits from the lines that share a set (analysis/xor_index.hpp), checked by predictions
// the chases confirm or refute. Internal to src/probes/geometry.
//
//   eviction_set_search.cpp: the pools (a chase over the target and more than the cache) and the
//                            reductions, all targets' tests of a round in one batch;
//   hashed_index.cpp:        the mapping (modulo or XOR) from the minimal sets, the checks, the
//                            findings (ways from the ways probe, set_bits from either).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/confidence.hpp"
#include "analysis/eviction_sets.hpp"
#include "probes/geometry/geometry_measurement.hpp"

namespace memtopo {

// Address bits at and above this (2 MiB) are not the chase's: both backends place every array on
// a 2 MiB boundary, and a GPU maps 2 MiB pages, whose physical frames a chase cannot see. Index
// functions are looked for below it.
inline constexpr unsigned kArrayAlignmentBits = 21;

// One target line and what the reduction made of it.
struct EvictionTarget {
  std::uint64_t line = 0;
  std::uint64_t pool_lines = 0;    // lines of the pool chase that evicted it (0: none did)
  std::vector<std::uint64_t> set;  // its minimal eviction set, when minimal
  bool minimal = false;
  std::string why;  // when not
  std::size_t tests = 0, rounds = 0;
};

// The eviction-set search of one cache.
struct EvictionSetSearch {
  std::uint64_t cache_lines = 0;  // the capacity the pools were planned from
  bool deterministic = true;      // every missing pool line slow on every pass (LRU, FIFO)
  std::uint32_t passes = 0;       // timed passes of every eviction test
  std::uint32_t min_slow = 0;     // slow accesses that make a line of a test miss
  std::vector<EvictionTarget> targets;
  WaysVote vote;
  std::uint64_t chases = 0, batches = 0, loads = 0;
  std::uint64_t critical_path_loads = 0;  // per batch its longest chase, summed (device time)
  // The lines of each target whose minimal set had the voted size, the target first.
  std::vector<std::vector<std::uint64_t>> full_sets() const;
};

// Searches from pools [0, cache_lines) plus each target (an SM cache: every pool and test of a
// round in one batch, one chase per SM).
EvictionSetSearch search_eviction_sets_sm(GeometryMeasurement& g, std::uint64_t cache_lines);

// Searches from one pool: the sequential chase over `chased_lines` lines past the size (a
// device-wide cache, every chase alone), whose lines slow on every pass are `missing`; chased
// again with more passes when those are not deterministic: when more lines were slow on some
// pass only (`slow_on_some_pass` in all) than outliers explain.
EvictionSetSearch search_eviction_sets_device_wide(GeometryMeasurement& g,
                                                   std::uint64_t cache_lines,
                                                   std::uint64_t chased_lines,
                                                   const OverflowLines& missing,
                                                   std::size_t slow_on_some_pass);

// The set index the minimal sets reveal, checked.
struct HashedIndex {
  std::optional<std::uint64_t> sets;  // modulo: the spacing; xor: 2^functions; else lines / ways
  std::string mapping;                // "modulo", "xor" or "unknown"
  std::uint64_t coordinates = 0;      // xor: the address bits considered (a mask)
  std::vector<std::uint64_t> masks;   // xor: one per index bit, reduced
  bool complete = false;              // sets x ways accounts for the capacity
  std::size_t checks = 0, agreeing_checks = 0;
  nlohmann::json check_evidence = nlohmann::json::array();
  std::string why;  // why the index is not known, when it is not
};

// The mapping from the search's full sets, and chases that check its predictions.
HashedIndex infer_hashed_index(GeometryMeasurement& g, EvictionSetSearch& search);

// The search and the index as evidence (targets, vote, functions, checks, cost).
nlohmann::json hashed_index_evidence(const EvictionSetSearch& search, const HashedIndex& index);

// How sure the ways are: the targets whose minimal set had the voted size, of all targets.
Confidence eviction_set_confidence(std::size_t agreeing_targets, std::size_t targets);

// ways (ways probe): conclusive when most targets agree, else inconclusive with the evidence;
// `ev` holds what the overfull-set chases found before. Returns whether it was conclusive.
bool write_ways_from_eviction_sets(GeometryMeasurement& g, const EvictionSetSearch& search,
                                   const HashedIndex& index, nlohmann::json ev);

// set_bits from an index: the bits (modulo over 2^n sets, or single-bit functions), the XOR
// functions, {"modulo": sets}, or inconclusive with the reason. `base` carries what the value
// also rests on (the ways).
void write_set_bits_from_index(GeometryMeasurement& g, const HashedIndex& index, Confidence base,
                               nlohmann::json ev);

}  // namespace memtopo
