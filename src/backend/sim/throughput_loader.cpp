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
    rates[static_cast<std::size_t>(cache - caches.begin())] =
        read_positive(rate, place.key(name), limits::kMaxBytesPerCycle);
  }
  return rates;
}

// {"<device cache name>": share in [0, 1]}: what a looping stream finds again of each cache.
std::vector<double> read_retained_shares(const StrictObject& object,
                                         const std::vector<CacheDescription>& caches) {
  std::vector<double> shares(caches.size(), 0.0);
  if (!object.has("loop_retained_share")) return shares;
  const nlohmann::json& value = object.required("loop_retained_share");
  const JsonPlace place = object.place("loop_retained_share");
  if (!value.is_object()) place.fail("must be an object {\"<cache name>\": share in [0, 1]}");
  for (const auto& [name, share] : value.items()) {
    const auto cache = std::find_if(caches.begin(), caches.end(),
                                    [&](const CacheDescription& c) { return c.name == name; });
    if (cache == caches.end()) place.key(name).fail("no cache is named " + in_quotes(name));
    if (cache->scope != CacheScope::device) {
      place.key(name).fail("only a device-scope cache holds lines between a stream's passes");
    }
    const double number = read_number(share, place.key(name));
    if (!(number >= 0 && number <= 1)) {
      place.key(name).fail("must lie in [0, 1], got " + json_excerpt(share));
    }
    shares[static_cast<std::size_t>(cache - caches.begin())] = number;
  }
  return shares;
}

}  // namespace

ThroughputDescription read_throughput(const nlohmann::json& value, const JsonPlace& place,
                                      const std::vector<CacheDescription>& caches) {
  const StrictObject object(
      value, place,
      {"cache_bytes_per_cycle", "loop_retained_share", "shared_bytes_per_cycle",
       "dram_bytes_per_cycle", "write_factor", "copy_factor", "load_instructions_per_cycle",
       "max_threads_per_sm", "launch_jitter", "memory_clock_khz", "memory_bus_width_bits"});
  ThroughputDescription throughput;
  throughput.cache_bytes_per_cycle = read_cache_rates(object, caches);
  throughput.loop_retained_share = read_retained_shares(object, caches);
  const auto positive_or = [&](std::string_view key, double fallback, double max) {
    return object.has(key) ? read_positive(object, key, max) : fallback;
  };
  throughput.shared_bytes_per_cycle =
      positive_or("shared_bytes_per_cycle", 0, limits::kMaxBytesPerCycle);
  throughput.dram_bytes_per_cycle =
      positive_or("dram_bytes_per_cycle", 0, limits::kMaxBytesPerCycle);
  throughput.write_factor = positive_or("write_factor", 1, limits::kMaxRateFactor);
  throughput.copy_factor = positive_or("copy_factor", 1, limits::kMaxRateFactor);
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
  throughput.memory_clock_khz = object.uint_or("memory_clock_khz", 0, limits::kMaxClockKhz);
  throughput.memory_bus_width_bits = static_cast<std::uint32_t>(
      object.uint_or("memory_bus_width_bits", 0, limits::kMaxBusWidthBits));
  return throughput;
}

}  // namespace memtopo::sim
