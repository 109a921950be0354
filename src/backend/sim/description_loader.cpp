// Reads a simulated device description: the document, shared memory, noise, and the checks
// across its parts (unique names, the unified cache); caches and TLB levels: array_loader.cpp.
#include "backend/sim/description_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "backend/backend.hpp"
#include "backend/sim/array_loader.hpp"
#include "backend/sim/multi_gpu_loader.hpp"
#include "backend/sim/strict_json.hpp"
#include "backend/sim/throughput_loader.hpp"
#include "model/printable_text.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;

// carveout_steps_bytes: a non-empty, strictly increasing list, at most bytes_per_sm.
std::vector<std::uint64_t> read_carveout_steps(const StrictObject& object,
                                               std::uint64_t bytes_per_sm) {
  const JsonPlace place = object.place("carveout_steps_bytes");
  const json& list =
      read_bounded_array(object.required("carveout_steps_bytes"), place, limits::kMaxCarveoutSteps);
  if (list.empty()) place.fail("needs at least one carveout step");
  std::vector<std::uint64_t> steps;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::uint64_t step = read_uint(list[i], place.item(i));
    if (!steps.empty() && step <= steps.back()) {
      place.item(i).fail("steps must increase strictly, but " + std::to_string(step) + " follows " +
                         std::to_string(steps.back()));
    }
    if (step > bytes_per_sm) {
      place.item(i).fail("step " + std::to_string(step) + " exceeds bytes_per_sm " +
                         std::to_string(bytes_per_sm));
    }
    steps.push_back(step);
  }
  return steps;
}

SharedMemoryDescription read_shared_memory(const json& value, const JsonPlace& place) {
  const StrictObject object(value, place,
                            {"bytes_per_sm", "banks", "bank_width_bytes", "latency", "unified_with",
                             "carveout_steps_bytes"});
  SharedMemoryDescription shared;
  shared.bytes_per_sm = object.uint("bytes_per_sm", limits::kMaxSharedBytesPerSm);
  if (shared.bytes_per_sm < 4) object.fail("bytes_per_sm", "must hold at least one 4-byte word");
  shared.banks = read_positive_u32(object, "banks", limits::kMaxBanks);
  shared.bank_width_bytes = static_cast<std::uint32_t>(
      read_power_of_two(object, "bank_width_bytes",
                        read_positive_u32(object, "bank_width_bytes", limits::kMaxBankWidthBytes)));
  shared.latency = read_cycles(object, "latency");
  // The two keys describe one thing, a unified array and the carveouts it allows: both or none.
  if (object.has("unified_with") != object.has("carveout_steps_bytes")) {
    const std::string_view present =
        object.has("unified_with") ? "unified_with" : "carveout_steps_bytes";
    const std::string_view absent =
        object.has("unified_with") ? "carveout_steps_bytes" : "unified_with";
    object.fail(present, "needs " + in_quotes(absent) + " beside it");
  }
  if (object.has("unified_with")) {
    if (object.string("unified_with").empty()) object.fail("unified_with", "must name a cache");
    // Escaped like the cache names it is compared with.
    shared.unified_with = read_printable_name(object, "unified_with");
    shared.carveout_steps_bytes = read_carveout_steps(object, shared.bytes_per_sm);
  }
  return shared;
}

// The unified cache must be able to shrink by whole sets at every carveout step (modulo index,
// equal sets, one instance per SM) and keep at least one set at the largest.
void check_unified_cache(const SimDescription& description, const JsonPlace& shared_place) {
  const SharedMemoryDescription& shared = description.shared_memory;
  if (shared.unified_with.empty()) return;
  const JsonPlace place = shared_place.key("unified_with");
  const auto cache =
      std::find_if(description.caches.begin(), description.caches.end(),
                   [&](const CacheDescription& c) { return c.name == shared.unified_with; });
  if (cache == description.caches.end()) {
    place.fail("no cache is named " + in_quotes(shared.unified_with));
  }
  const std::string which = "the unified cache " + in_quotes(cache->name);
  if (cache->scope != CacheScope::sm) place.fail(which + " must have scope \"sm\"");
  if (cache->instances_per_sm != 1) {
    place.fail(which + " must have one instance per SM (the carveout shrinks one array)");
  }
  if (cache->associativity.ways == 0 || !cache->associativity.ways_per_set.empty()) {
    place.fail(which + " needs an integer ways > 0, so that it shrinks by whole sets");
  }
  if (cache->set_index.kind != SetIndex::Kind::modulo) {
    place.fail(which + " needs set_index \"modulo\" (a bit-selected or XOR index needs 2^n sets)");
  }
  const std::uint64_t set_bytes = std::uint64_t{cache->line_bytes} * cache->associativity.ways;
  const JsonPlace steps_place = shared_place.key("carveout_steps_bytes");
  for (std::size_t i = 0; i < shared.carveout_steps_bytes.size(); ++i) {
    const std::uint64_t shrink = shared.carveout_steps_bytes[i] - shared.carveout_steps_bytes[0];
    if (shrink % set_bytes != 0) {
      steps_place.item(i).fail("shrinks " + which + " by " + std::to_string(shrink) +
                               " bytes, not a multiple of its set (line_bytes x ways = " +
                               std::to_string(set_bytes) + ")");
    }
    if (shrink >= cache->size_bytes) {
      steps_place.item(i).fail("shrinks " + which + " by " + std::to_string(shrink) +
                               " bytes, leaving nothing of its " +
                               std::to_string(cache->size_bytes));
    }
  }
}

NoiseDescription read_noise(const json& value, const JsonPlace& place) {
  const StrictObject object(value, place,
                            {"seed", "jitter_cycles", "outlier_probability", "outlier_cycles"});
  NoiseDescription noise;
  noise.seed = object.uint_or("seed", 0);
  noise.jitter_cycles = read_cycles_or(object, "jitter_cycles");
  if (object.has("outlier_probability")) {
    noise.outlier_probability =
        read_number(object.required("outlier_probability"), object.place("outlier_probability"));
    if (!(noise.outlier_probability >= 0 && noise.outlier_probability <= 1)) {
      object.fail("outlier_probability", "must lie in [0, 1], got " +
                                             json_excerpt(object.required("outlier_probability")));
    }
  }
  noise.outlier_cycles = read_cycles_or(object, "outlier_cycles");
  return noise;
}

// Fails naming the second of two entries of `list` with the same name.
template <typename Entry>
void require_unique_names(const std::vector<Entry>& list, const JsonPlace& place) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (list[i].name == list[j].name) {
        place.item(i).key("name").fail("the name " + in_quotes(list[i].name) + " is already taken");
      }
    }
  }
}

// No GPU has an SM's cache larger than its memory (a 32 PiB L1 of 2 GiB lines on a 1 GiB
// device was accepted and took 1.25 GB of simulator state), nor a line larger than its memory.
void check_caches_fit_the_memory(const SimDescription& description, const JsonPlace& place) {
  const std::uint64_t memory = description.global_memory_bytes;
  for (std::size_t i = 0; i < description.caches.size(); ++i) {
    const CacheDescription& cache = description.caches[i];
    if (cache.line_bytes > memory) {
      place.item(i)
          .key("line_bytes")
          .fail(std::to_string(cache.line_bytes) + " is larger than the device's memory " +
                "(global_memory_bytes " + std::to_string(memory) + ")");
    }
    // Both factors are bounded (limits::), so the product fits 64 bits.
    const std::uint64_t per_sm = cache.size_bytes * cache.instances_per_sm;
    if (cache.scope == CacheScope::sm && per_sm > memory) {
      place.item(i)
          .key("size_bytes")
          .fail("an SM's " + std::to_string(per_sm) + " bytes of this cache (size_bytes x " +
                "instances_per_sm) are more than the device's memory (global_memory_bytes " +
                std::to_string(memory) + ")");
    }
  }
}

SimDescription read_description(const json& document, const JsonPlace& place) {
  const StrictObject object(
      document, place,
      {"name", "sm_count", "clock_khz", "global_memory_bytes", "dram_latency", "compute_capability",
       "timing_overhead", "caches", "tlbs", "shared_memory", "noise", "batch_shares_device_caches",
       "throughput", "multi_gpu"});
  SimDescription description;
  description.name = read_printable_name(object, "name");
  description.sm_count = read_positive_u32(object, "sm_count", limits::kMaxSmCount);
  description.clock_khz = object.uint("clock_khz", limits::kMaxClockKhz);
  if (description.clock_khz == 0) object.fail("clock_khz", "must be at least 1");
  description.global_memory_bytes =
      object.uint("global_memory_bytes", limits::kMaxGlobalMemoryBytes);
  if (description.global_memory_bytes < 4) {
    object.fail("global_memory_bytes", "must hold at least one 4-byte word");
  }
  description.dram_latency = read_cycles(object, "dram_latency");
  description.timing_overhead = read_cycles_or(object, "timing_overhead");

  if (object.has("compute_capability")) {
    const JsonPlace cc_place = object.place("compute_capability");
    const json& cc = read_array(object.required("compute_capability"), cc_place);
    if (cc.size() != 2) cc_place.fail("expected [major, minor], got " + json_excerpt(cc));
    description.cc_major = static_cast<int>(read_uint(cc[0], cc_place.item(0), 99));
    description.cc_minor = static_cast<int>(read_uint(cc[1], cc_place.item(1), 99));
  }

  if (object.has("caches")) {
    const JsonPlace caches_place = object.place("caches");
    const json& caches =
        read_bounded_array(object.required("caches"), caches_place, limits::kMaxCaches);
    for (std::size_t i = 0; i < caches.size(); ++i) {
      description.caches.push_back(read_cache(caches[i], caches_place.item(i)));
    }
    require_unique_names(description.caches, caches_place);
    check_caches_fit_the_memory(description, caches_place);
    for (std::size_t i = 0; i < description.caches.size(); ++i) {
      const std::size_t listed = description.caches[i].sm_partitions.size();
      if (listed != 0 && listed != description.sm_count) {
        caches_place.item(i)
            .key("sm_partitions")
            .fail("lists " + std::to_string(listed) + " SMs, but sm_count is " +
                  std::to_string(description.sm_count) + " (one partition per SM)");
      }
    }
  }
  if (object.has("tlbs")) {
    const JsonPlace tlbs_place = object.place("tlbs");
    const json& tlbs =
        read_bounded_array(object.required("tlbs"), tlbs_place, limits::kMaxTlbLevels);
    for (std::size_t i = 0; i < tlbs.size(); ++i) {
      description.tlbs.push_back(read_tlb(tlbs[i], tlbs_place.item(i)));
    }
    require_unique_names(description.tlbs, tlbs_place);
  }
  description.shared_memory =
      read_shared_memory(object.required("shared_memory"), object.place("shared_memory"));
  check_unified_cache(description, object.place("shared_memory"));
  if (object.has("noise")) {
    description.noise = read_noise(object.required("noise"), object.place("noise"));
  }
  if (object.has("batch_shares_device_caches")) {
    const json& shares = object.required("batch_shares_device_caches");
    if (!shares.is_boolean()) {
      object.fail("batch_shares_device_caches",
                  "expected true or false, got " + json_excerpt(shares));
    }
    description.batch_shares_device_caches = shares.get<bool>();
  }
  if (object.has("throughput")) {
    description.throughput = read_throughput(object.required("throughput"),
                                             object.place("throughput"), description.caches);
  }
  if (object.has("multi_gpu")) {
    description.multi_gpu = read_multi_gpu(object.required("multi_gpu"), object.place("multi_gpu"));
  }
  // Every value plausible, yet too much state (132 SMs with a 2 GiB L1 each): a resource
  // error, before anything is allocated.
  if (const std::string problem = too_large_to_simulate(description); !problem.empty()) {
    place.fail(problem);
  }
  return description;
}

}  // namespace

SimDescription parse_description(const std::string& json_text, const std::string& origin) {
  return read_description(parse_json_strictly(json_text, origin), JsonPlace(origin, ""));
}

SimDescription load_description_file(const std::string& path) {
  // Paths are bytes; messages show them printable (control characters and non-UTF-8 escaped).
  const std::string origin = printable_text(path);
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw DescriptionError(origin + ": no such file");
  if (std::filesystem::is_directory(path, error)) {
    throw DescriptionError(origin + ": is a directory, not a description file");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw DescriptionError(origin + ": cannot be opened for reading");
  // Read at most one byte more than a description may have, so that /dev/zero or an endless
  // pipe ends in an error rather than in exhausted memory (a pipe, as in --sim <(...), works).
  std::string text(limits::kMaxDescriptionBytes + 1, '\0');
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (file.bad()) throw DescriptionError(origin + ": cannot be read");
  text.resize(static_cast<std::size_t>(file.gcount()));
  return parse_description(text, origin);
}

}  // namespace memtopo::sim