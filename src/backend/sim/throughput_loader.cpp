#include "backend/sim/throughput_loader.hpp"

#include <algorithm>
#include <string>

namespace memtopo::sim {
namespace {

constexpr std::uint32_t kMinThreadsPerSm = 32;  // one warp
constexpr double kMaxLaunchJitter = 0.5;

// A positive rate of at most `max`: larger ones are typing mistakes, not devices.
double read_positive(const nlohmann::json& value, const JsonPlace& place, double max) {
  const double number = read_number(value, place);
  if (!(number > 0 && number <= max)) {
    place.fail("must be a positive number of at most " + json_excerpt(max) + ", got " +
               json_excerpt(value));
  }
  return number;
}

double read_positive(const StrictObject& object, std::string_view key, double max) {
  return read_positive(object.required(key), object.place(key), max);
}

// An object {"<cache name>": number} under `key`: one number per cache, by its index in `caches`,
// 0 for a cache it does not name; `read` reads (and checks) each number for its cache.
template <typename ReadNumber>
std::vector<double> read_per_cache(const StrictObject& object, std::string_view key,
                                   const std::vector<CacheDescription>& caches,
                                   const ReadNumber& read) {
  std::vector<double> numbers(caches.size(), 0.0);
  if (!object.has(key)) return numbers;
  const nlohmann::json& value = object.required(key);
  const JsonPlace place = object.place(key);
  if (!value.is_object()) place.fail("must be an object {\"<cache name>\": number}");
  for (const auto& [name, number] : value.items()) {
    const auto cache = std::find_if(caches.begin(), caches.end(),
                                    [&](const CacheDescription& c) { return c.name == name; });
    if (cache == caches.end()) place.key(name).fail("no cache is named " + in_quotes(name));
    numbers[static_cast<std::size_t>(cache - caches.begin())] =
        read(number, place.key(name), *cache);
  }
  return numbers;
}

std::vector<double> read_cache_rates(const StrictObject& object,
                                     const std::vector<CacheDescription>& caches) {
  return read_per_cache(
      object, "cache_bytes_per_cycle", caches,
      [](const nlohmann::json& rate, const JsonPlace& place, const CacheDescription&) {
        return read_positive(rate, place, limits::kMaxBytesPerCycle);
      });
}

// {"<device cache name>": share in [0, 1]}: what a looping stream finds again of each cache.
std::vector<double> read_retained_shares(const StrictObject& object,
                                         const std::vector<CacheDescription>& caches) {
  return read_per_cache(
      object, "loop_retained_share", caches,
      [](const nlohmann::json& share, const JsonPlace& place, const CacheDescription& cache) {
        if (cache.scope != CacheScope::device) {
          place.fail("only a device-scope cache holds lines between a stream's passes");
        }
        const double number = read_number(share, place);
        if (!(number >= 0 && number <= 1)) {
          place.fail("must lie in [0, 1], got " + json_excerpt(share));
        }
        return number;
      });
}

// {"beyond_bytes": B, "factor_within": w, "factor_beyond": f}: a looping DRAM stream runs at w x
// its rate over at most B bytes, at f x beyond.
void read_looping_dram(const StrictObject& throughput, ThroughputDescription& out) {
  constexpr std::string_view kKey = "looping_dram";
  if (!throughput.has(kKey)) return;
  const StrictObject looping(throughput.required(kKey), throughput.place(kKey),
                             {"beyond_bytes", "factor_within", "factor_beyond"});
  out.looping_dram_beyond_bytes = looping.uint("beyond_bytes", limits::kMaxGlobalMemoryBytes);
  const auto factor = [&](std::string_view key) {
    return looping.has(key) ? read_positive(looping, key, limits::kMaxRateFactor) : 1.0;
  };
  out.looping_dram_factor_within = factor("factor_within");
  out.looping_dram_factor_beyond = factor("factor_beyond");
}

}  // namespace

ThroughputDescription read_throughput(const nlohmann::json& value, const JsonPlace& place,
                                      const std::vector<CacheDescription>& caches) {
  const StrictObject object(
      value, place,
      {"cache_bytes_per_cycle", "loop_retained_share", "shared_bytes_per_cycle",
       "dram_bytes_per_cycle", "write_factor", "copy_factor", "triad_factor",
       "triad3_factor", "looping_dram",
       "load_instructions_per_cycle", "max_threads_per_sm", "launch_jitter", "memory_clock_khz",
       "memory_bus_width_bits"});
  ThroughputDescription throughput;
  throughput.cache_bytes_per_cycle = read_cache_rates(object, caches);
  throughput.loop_retained_share = read_retained_shares(object, caches);
  read_looping_dram(object, throughput);
  const auto positive_or = [&](std::string_view key, double fallback, double max) {
    return object.has(key) ? read_positive(object, key, max) : fallback;
  };
  throughput.shared_bytes_per_cycle =
      positive_or("shared_bytes_per_cycle", 0, limits::kMaxBytesPerCycle);
  throughput.dram_bytes_per_cycle =
      positive_or("dram_bytes_per_cycle", 0, limits::kMaxBytesPerCycle);
  throughput.write_factor = positive_or("write_factor", 1, limits::kMaxRateFactor);
  throughput.copy_factor = positive_or("copy_factor", 1, limits::kMaxRateFactor);
  throughput.triad_factor =
      positive_or("triad_factor", triad_factor_of(throughput.write_factor), limits::kMaxRateFactor);
  throughput.triad3_factor = positive_or(
      "triad3_factor", triad_factor_of(throughput.write_factor, 3), limits::kMaxRateFactor);
  throughput.load_instructions_per_cycle =
      positive_or("load_instructions_per_cycle", 0, limits::kMaxLoadsPerCycle);
  throughput.max_threads_per_sm = static_cast<std::uint32_t>(
      object.uint_or("max_threads_per_sm", kDefaultMaxThreadsPerSm, limits::kMaxThreadsPerSm));
  if (throughput.max_threads_per_sm < kMinThreadsPerSm) {
    object.fail("max_threads_per_sm", "must hold at least one warp (32 threads)");
  }
  if (object.has("launch_jitter")) {
    throughput.launch_jitter =
        read_number(object.required("launch_jitter"), object.place("launch_jitter"));
    if (!(throughput.launch_jitter >= 0 && throughput.launch_jitter <= kMaxLaunchJitter)) {
      object.fail("launch_jitter",
                  "must lie in [0, 0.5], got " + json_excerpt(object.required("launch_jitter")));
    }
  }
  throughput.memory_clock_khz = object.uint_or("memory_clock_khz", 0, limits::kMaxMemoryClockKhz);
  throughput.memory_bus_width_bits = static_cast<std::uint32_t>(
      object.uint_or("memory_bus_width_bits", 0, limits::kMaxBusWidthBits));
  return throughput;
}

}  // namespace memtopo::sim
