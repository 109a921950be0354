#include "backend/sim/throughput_loader.hpp"

#include <algorithm>
#include <string>

namespace memtopo::sim {
namespace {

constexpr std::uint32_t kMinThreadsPerSm = 32;  // one warp
constexpr double kMaxLaunchJitter = 0.5;

double read_positive(const StrictObject& object, std::string_view key) {
  const double value = read_number(object.required(key), object.place(key));
  if (!(value > 0))
    object.fail(key, "must be a positive number, got " + json_excerpt(object.required(key)));
  return value;
}

std::vector<double> read_cache_rates(const StrictObject& object,
                                     const std::vector<CacheDescription>& caches) {
  std::vector<double> rates(caches.size(), 0.0);
  if (!object.has("cache_bytes_per_cycle")) return rates;
  const nlohmann::json& value = object.required("cache_bytes_per_cycle");
  const JsonPlace place = object.place("cache_bytes_per_cycle");
  if (!value.is_object()) place.fail("must be an object {\"<cache name>\": bytes per cycle}");
  for (const auto& [name, rate] : value.items()) {
    const auto cache = std::find_if(caches.begin(), caches.end(),
                                    [&](const CacheDescription& c) { return c.name == name; });
    if (cache == caches.end()) place.key(name).fail("no cache is named " + in_quotes(name));
    const double bytes = read_number(rate, place.key(name));
    if (!(bytes > 0)) place.key(name).fail("must be a positive number, got " + json_excerpt(rate));
    rates[static_cast<std::size_t>(cache - caches.begin())] = bytes;
  }
  return rates;
}

}  // namespace

ThroughputDescription read_throughput(const nlohmann::json& value, const JsonPlace& place,
                                      const std::vector<CacheDescription>& caches) {
  const StrictObject object(
      value, place,
      {"cache_bytes_per_cycle", "shared_bytes_per_cycle", "dram_bytes_per_cycle", "write_factor",
       "copy_factor", "load_instructions_per_cycle", "max_threads_per_sm", "launch_jitter",
       "memory_clock_khz", "memory_bus_width_bits"});
  ThroughputDescription throughput;
  throughput.cache_bytes_per_cycle = read_cache_rates(object, caches);
  const auto positive_or = [&](std::string_view key, double fallback) {
    return object.has(key) ? read_positive(object, key) : fallback;
  };
  throughput.shared_bytes_per_cycle = positive_or("shared_bytes_per_cycle", 0);
  throughput.dram_bytes_per_cycle = positive_or("dram_bytes_per_cycle", 0);
  throughput.write_factor = positive_or("write_factor", 1);
  throughput.copy_factor = positive_or("copy_factor", 1);
  throughput.load_instructions_per_cycle = positive_or("load_instructions_per_cycle", 0);
  throughput.max_threads_per_sm = static_cast<std::uint32_t>(
      object.uint_or("max_threads_per_sm", kDefaultMaxThreadsPerSm, UINT32_MAX));
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
  throughput.memory_clock_khz = object.uint_or("memory_clock_khz", 0);
  throughput.memory_bus_width_bits =
      static_cast<std::uint32_t>(object.uint_or("memory_bus_width_bits", 0, UINT32_MAX));
  return throughput;
}

}  // namespace memtopo::sim
