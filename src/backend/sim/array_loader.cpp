// The caches and TLB levels of a simulated device description (array_loader.hpp).
#include "backend/sim/array_loader.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

#include "backend/backend.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;

using limits::kMaxEntries;

// An integer (every set alike, 0 = fully associative) or a list of per-set ways.
Associativity read_associativity(const StrictObject& object) {
  const json& value = object.required("ways");
  const JsonPlace place = object.place("ways");
  if (!value.is_array()) return Associativity{read_u32(object, "ways", limits::kMaxWaysPerSet), {}};
  if (value.empty()) place.fail("a list of per-set ways needs at least one set");
  if (value.size() > kMaxEntries) {
    place.fail("lists " + std::to_string(value.size()) + " sets; at most " +
               std::to_string(kMaxEntries) + " are accepted");
  }
  Associativity associativity;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto ways =
        static_cast<std::uint32_t>(read_uint(value[i], place.item(i), limits::kMaxWaysPerSet));
    if (ways == 0) place.item(i).fail("every set needs at least one way");
    associativity.ways_per_set.push_back(ways);
  }
  return associativity;
}

// A fully associative array is one set of every line, and a lookup scans its set.
void check_fully_associative_set(const StrictObject& object, const Associativity& associativity,
                                 std::uint64_t entries) {
  if (associativity.ways != 0 || !associativity.ways_per_set.empty()) return;
  if (entries > limits::kMaxWaysPerSet) {
    object.fail("ways", "0 (fully associative) makes one set of " + std::to_string(entries) +
                            " ways; at most " + std::to_string(limits::kMaxWaysPerSet) +
                            " ways per set are simulated (give a set count through ways)");
  }
}

std::uint64_t listed_ways(const Associativity& associativity) {
  return std::accumulate(associativity.ways_per_set.begin(), associativity.ways_per_set.end(),
                         std::uint64_t{0});
}

// One address bit of a set index: at or above the line offset (a line's bytes share a set).
std::uint32_t read_index_bit(const json& value, const JsonPlace& place, std::uint32_t line_bytes) {
  const auto line_bit = static_cast<std::uint64_t>(std::countr_zero(line_bytes));
  const auto bit = static_cast<std::uint32_t>(read_uint(value, place, 63));
  if (bit < line_bit) {
    place.fail("bit " + std::to_string(bit) + " lies inside a " + std::to_string(line_bytes) +
               "-byte line; set bits start at bit " + std::to_string(line_bit));
  }
  return bit;
}

void require_sets_of_bits(const StrictObject& object, std::string_view key, std::size_t count,
                          const char* what, std::size_t sets) {
  if (count >= 32 || (std::size_t{1} << count) != sets) {
    object.fail(key, std::to_string(count) + " " + what + " select 2^" + std::to_string(count) +
                         " sets, but the cache has " + std::to_string(sets) + " sets");
  }
}

SetIndex read_bit_selection(const StrictObject& object, std::uint32_t line_bytes,
                            std::size_t sets) {
  const json& bits = read_array(object.required("bits"), object.place("bits"));
  SetIndex index{SetIndex::Kind::bits, {}, {}};
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const JsonPlace bit_place = object.place("bits").item(i);
    const std::uint32_t bit = read_index_bit(bits[i], bit_place, line_bytes);
    if (std::find(index.bits.begin(), index.bits.end(), bit) != index.bits.end()) {
      bit_place.fail("bit " + std::to_string(bit) + " is listed twice");
    }
    index.bits.push_back(bit);
  }
  require_sets_of_bits(object, "bits", bits.size(), "bits", sets);
  return index;
}

// Whether the masks are linearly independent over GF(2): otherwise some set numbers never occur.
bool independent(std::vector<std::uint64_t> masks) {
  for (std::size_t i = 0; i < masks.size(); ++i) {
    if (masks[i] == 0) return false;
    const std::uint64_t pivot = masks[i] & -masks[i];  // lowest set bit
    for (std::size_t j = i + 1; j < masks.size(); ++j) {
      if (masks[j] & pivot) masks[j] ^= masks[i];
    }
  }
  return true;
}

SetIndex read_xor_functions(const StrictObject& object, std::uint32_t line_bytes,
                            std::size_t sets) {
  const json& functions = read_array(object.required("xor"), object.place("xor"));
  SetIndex index{SetIndex::Kind::xor_functions, {}, {}};
  for (std::size_t k = 0; k < functions.size(); ++k) {
    const JsonPlace function_place = object.place("xor").item(k);
    const json& bits = read_array(functions[k], function_place);
    if (bits.empty()) function_place.fail("a set bit needs at least one address bit");
    std::uint64_t mask = 0;
    for (std::size_t i = 0; i < bits.size(); ++i) {
      const std::uint32_t bit = read_index_bit(bits[i], function_place.item(i), line_bytes);
      if (mask & (std::uint64_t{1} << bit)) {
        function_place.item(i).fail("bit " + std::to_string(bit) + " is listed twice");
      }
      mask |= std::uint64_t{1} << bit;
    }
    index.xor_masks.push_back(mask);
  }
  require_sets_of_bits(object, "xor", functions.size(), "functions", sets);
  if (!independent(index.xor_masks)) {
    object.fail("xor",
                "the functions are not linearly independent (one is the XOR of others), "
                "so some sets would never be used");
  }
  return index;
}

SetIndex read_set_index(const StrictObject& cache, std::uint32_t line_bytes, std::size_t sets) {
  if (!cache.has("set_index")) return SetIndex{};
  const json& value = cache.required("set_index");
  const JsonPlace place = cache.place("set_index");
  if (value == "modulo") return SetIndex{};
  if (!value.is_object()) {
    place.fail("must be \"modulo\", {\"bits\": [...]} or {\"xor\": [[...], ...]}, got " +
               json_excerpt(value));
  }
  const StrictObject object(value, place, {"bits", "xor"});
  if (object.has("xor")) {
    if (object.has("bits")) object.fail("xor", "give either bits or xor, not both");
    return read_xor_functions(object, line_bytes, sets);
  }
  return read_bit_selection(object, line_bytes, sets);
}

Replacement read_policy(const StrictObject& cache, const Associativity& associativity,
                        std::uint64_t lines) {
  if (!cache.has("policy")) return Replacement{};
  const json& value = cache.required("policy");
  const JsonPlace place = cache.place("policy");
  if (value == "lru") return Replacement{Replacement::Kind::lru, {}};
  if (value == "fifo") return Replacement{Replacement::Kind::fifo, {}};
  if (value == "random") return Replacement{Replacement::Kind::random, {}};
  if (value == "lip") return Replacement{Replacement::Kind::lip, {}};
  if (!value.is_object()) {
    place.fail(
        "must be \"lru\", \"fifo\", \"random\", \"lip\" or {\"victim_weights\": [...]}, got " +
        json_excerpt(value));
  }
  const StrictObject object(value, place, {"victim_weights"});
  const json& weights =
      read_array(object.required("victim_weights"), object.place("victim_weights"));
  Replacement policy{Replacement::Kind::victim_weights, {}};
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const JsonPlace weight_place = object.place("victim_weights").item(i);
    const double weight = read_number(weights[i], weight_place);
    if (weight < 0) {
      weight_place.fail("a weight must not be negative, got " + json_excerpt(weights[i]));
    }
    if (weight > limits::kMaxVictimWeight) {
      weight_place.fail("a weight must be at most " +
                        std::to_string(static_cast<std::uint64_t>(limits::kMaxVictimWeight)) +
                        ", got " + json_excerpt(weights[i]));
    }
    policy.victim_weights.push_back(weight);
  }
  if (!associativity.ways_per_set.empty()) {
    object.fail("victim_weights", "needs sets of equal ways, but ways is a per-set list");
  }
  const std::uint64_t ways = associativity.ways == 0 ? lines : associativity.ways;
  if (policy.victim_weights.size() != ways) {
    object.fail("victim_weights", "has " + std::to_string(policy.victim_weights.size()) +
                                      " weights for " + std::to_string(ways) + " ways");
  }
  if (std::accumulate(policy.victim_weights.begin(), policy.victim_weights.end(), 0.0) <= 0) {
    object.fail("victim_weights", "needs at least one positive weight");
  }
  return policy;
}

std::vector<LoadPath> read_paths(const StrictObject& cache) {
  const JsonPlace place = cache.place("paths");
  const json& names = read_array(cache.required("paths"), place);
  if (names.empty()) place.fail("a cache needs at least one load path");
  std::vector<LoadPath> paths;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string name = read_string(names[i], place.item(i));
    const std::optional<LoadPath> path = parse_load_path(name);
    if (!path) {
      place.item(i).fail("unknown load path " + in_quotes(name) +
                         " (known: ca, cg, cv, nc, tex, const)");
    }
    if (*path == LoadPath::shared) {
      place.item(i).fail("\"shared\" is shared memory, which no cache stands in front of");
    }
    if (std::find(paths.begin(), paths.end(), *path) != paths.end()) {
      place.item(i).fail("load path " + in_quotes(name) + " is listed twice");
    }
    paths.push_back(*path);
  }
  return paths;
}

CacheScope read_scope(const StrictObject& object) {
  const std::string scope = object.string("scope");
  if (scope != "sm" && scope != "device") {
    object.fail("scope", "must be \"sm\" or \"device\", got " + in_quotes(scope));
  }
  const CacheScope read = scope == "sm" ? CacheScope::sm : CacheScope::device;
  if (read == CacheScope::device && object.has("instances_per_sm")) {
    object.fail("instances_per_sm", "only a cache of scope \"sm\" has per-SM instances");
  }
  for (std::string_view key :
       {"partitions", "far_latency_extra", "partition_policy", "sm_partitions"}) {
    if (read == CacheScope::sm && object.has(key)) {
      object.fail(key, "only a cache of scope \"device\" has partitions");
    }
  }
  if (read == CacheScope::sm && object.has("segments")) {
    object.fail("segments", "only a cache of scope \"device\" has segments");
  }
  return read;
}

// line_bytes, sector_bytes, size_bytes and ways, checked against each other.
void read_geometry(const StrictObject& object, CacheDescription& cache) {
  cache.line_bytes = static_cast<std::uint32_t>(
      read_power_of_two(object, "line_bytes", object.uint("line_bytes", UINT32_MAX)));
  if (cache.line_bytes < 4) object.fail("line_bytes", "must hold at least one 4-byte word");
  cache.sector_bytes = static_cast<std::uint32_t>(read_power_of_two(
      object, "sector_bytes", object.uint_or("sector_bytes", cache.line_bytes, UINT32_MAX)));
  if (cache.line_bytes % cache.sector_bytes != 0) {
    object.fail("sector_bytes", std::to_string(cache.sector_bytes) +
                                    " does not divide line_bytes " +
                                    std::to_string(cache.line_bytes));
  }
  if (cache.line_bytes / cache.sector_bytes > 64) {
    object.fail("sector_bytes", "a line may have at most 64 sectors");
  }

  cache.size_bytes = object.uint("size_bytes");
  if (cache.size_bytes < cache.line_bytes) {
    object.fail("size_bytes", std::to_string(cache.size_bytes) + " is smaller than line_bytes " +
                                  std::to_string(cache.line_bytes) +
                                  ": a cache holds at least one line");
  }
  if (cache.size_bytes % cache.line_bytes != 0) {
    object.fail("size_bytes", std::to_string(cache.size_bytes) +
                                  " is not a positive multiple of line_bytes " +
                                  std::to_string(cache.line_bytes));
  }
  const std::uint64_t lines = cache.size_bytes / cache.line_bytes;
  if (lines > kMaxEntries) {
    object.fail("size_bytes", "holds " + std::to_string(lines) +
                                  " lines; the simulator models at most " +
                                  std::to_string(kMaxEntries));
  }

  cache.associativity = read_associativity(object);
  const Associativity& ways = cache.associativity;
  check_fully_associative_set(object, ways, lines);
  const std::uint64_t set_bytes = std::uint64_t{cache.line_bytes} * ways.ways;
  if (ways.ways_per_set.empty() && ways.ways != 0 && cache.size_bytes % set_bytes != 0) {
    object.fail("size_bytes",
                std::to_string(cache.size_bytes) +
                    " is not a multiple of line_bytes x ways = " + std::to_string(set_bytes));
  }
  if (!ways.ways_per_set.empty() && listed_ways(ways) != lines) {
    object.fail("ways", "the sets' ways add up to " + std::to_string(listed_ways(ways)) +
                            " lines, but size_bytes / line_bytes is " + std::to_string(lines));
  }
}

// segments: every segment an equal array of whole sets (so an integer ways, and size_bytes a
// multiple of segments x line_bytes x ways).
std::uint32_t read_segments(const StrictObject& object, const CacheDescription& cache) {
  if (!object.has("segments")) return 1;
  const std::uint32_t segments = read_positive_u32(object, "segments", limits::kMaxSegments);
  if (segments == 1) return segments;
  if (!cache.associativity.ways_per_set.empty()) {
    object.fail("segments", "needs an integer ways: a per-set ways list describes one array, not " +
                                std::to_string(segments) + " equal segments");
  }
  const std::uint64_t set_lines = std::max<std::uint32_t>(1, cache.associativity.ways);
  const std::uint64_t whole_sets_bytes = std::uint64_t{segments} * cache.line_bytes * set_lines;
  if (cache.size_bytes % whole_sets_bytes != 0) {
    object.fail("segments", "size_bytes " + std::to_string(cache.size_bytes) +
                                " does not split into " + std::to_string(segments) +
                                " segments of whole sets: it must be a multiple of segments x "
                                "line_bytes x ways = " +
                                std::to_string(whole_sets_bytes));
  }
  return segments;
}

// partition_policy and sm_partitions (its length is checked against sm_count by the caller).
void read_partition_layout(const StrictObject& object, CacheDescription& cache) {
  if (object.has("partition_policy")) {
    const std::string policy = object.string("partition_policy");
    if (policy == "home") {
      cache.partition_policy = PartitionPolicy::home;
    } else if (policy == "copy_on_read") {
      cache.partition_policy = PartitionPolicy::copy_on_read;
    } else {
      object.fail("partition_policy",
                  "must be \"home\" or \"copy_on_read\", got " + in_quotes(policy));
    }
  }
  if (!object.has("sm_partitions")) return;
  const JsonPlace place = object.place("sm_partitions");
  const json& list =
      read_bounded_array(object.required("sm_partitions"), place, limits::kMaxSmCount);
  if (cache.partitions < 2) place.fail("needs \"partitions\" of 2 or more");
  for (std::size_t i = 0; i < list.size(); ++i) {
    cache.sm_partitions.push_back(
        static_cast<std::uint32_t>(read_uint(list[i], place.item(i), cache.partitions - 1)));
  }
}

}  // namespace

CacheDescription read_cache(const json& value, const JsonPlace& place) {
  const StrictObject object(
      value, place,
      {"name", "scope", "instances_per_sm", "size_bytes", "line_bytes", "sector_bytes", "ways",
       "set_index", "policy", "hit_latency", "paths", "partitions", "far_latency_extra",
       "partition_policy", "sm_partitions", "segments"});
  CacheDescription cache;
  cache.name = read_printable_name(object, "name");
  cache.scope = read_scope(object);
  if (object.has("instances_per_sm")) {
    cache.instances_per_sm =
        read_positive_u32(object, "instances_per_sm", limits::kMaxInstancesPerSm);
  }
  read_geometry(object, cache);
  cache.segments = read_segments(object, cache);
  // Set index and policy describe one segment's array (the whole cache without segments).
  const std::uint64_t segment_lines = cache.size_bytes / cache.line_bytes / cache.segments;
  cache.set_index = read_set_index(object, cache.line_bytes,
                                   ways_of_each_set(cache.associativity, segment_lines).size());
  cache.policy = read_policy(object, cache.associativity, segment_lines);
  cache.hit_latency = read_cycles(object, "hit_latency");
  cache.paths = read_paths(object);
  if (object.has("partitions")) {
    cache.partitions = read_positive_u32(object, "partitions", limits::kMaxPartitions);
  }
  cache.far_latency_extra = read_cycles_or(object, "far_latency_extra");
  read_partition_layout(object, cache);
  return cache;
}

TlbDescription read_tlb(const json& value, const JsonPlace& place) {
  const StrictObject object(value, place,
                            {"name", "entries", "ways", "page_bytes", "miss_latency_extra"});
  TlbDescription tlb;
  tlb.name = read_printable_name(object, "name");
  tlb.entries = read_positive_u32(object, "entries");
  if (tlb.entries > kMaxEntries) {
    object.fail("entries", "the simulator models at most " + std::to_string(kMaxEntries));
  }
  tlb.associativity = read_associativity(object);
  const Associativity& ways = tlb.associativity;
  check_fully_associative_set(object, ways, tlb.entries);
  if (ways.ways_per_set.empty() && ways.ways != 0 && tlb.entries % ways.ways != 0) {
    object.fail("entries", std::to_string(tlb.entries) + " is not a multiple of ways " +
                               std::to_string(ways.ways));
  }
  if (!ways.ways_per_set.empty() && listed_ways(ways) != tlb.entries) {
    object.fail("ways", "the sets' ways add up to " + std::to_string(listed_ways(ways)) +
                            ", but entries is " + std::to_string(tlb.entries));
  }
  tlb.page_bytes =
      read_power_of_two(object, "page_bytes", object.uint("page_bytes", limits::kMaxPageBytes));
  if (tlb.page_bytes < limits::kMinPageBytes) {
    object.fail("page_bytes", "must be at least " + std::to_string(limits::kMinPageBytes) +
                                  " (4 KiB, the smallest page of any GPU), got " +
                                  std::to_string(tlb.page_bytes));
  }
  tlb.miss_latency_extra = read_cycles(object, "miss_latency_extra");
  return tlb;
}

}  // namespace memtopo::sim
