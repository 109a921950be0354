// Ground truth of the bandwidths, where the description has a throughput model
// (docs/sim-format.md, "How the simulated device runs a stream"): each level's peak, which the
// probes' launch search can reach on every description here (its issue limit and latencies
// leave the demand above the peak).
#include <string>
#include <vector>

#include "support/ground_truth.hpp"

namespace memtopo::validation {
namespace {

using nlohmann::json;

struct Rates {
  double read = 0;  // bytes per second
  double write_factor = 1;
  double copy_factor = 1;
};

// Read, write and copy bandwidth of one level whose read rate is `read` bytes per second.
std::vector<Fact> level_facts(const std::string& element, const Rates& rates, bool writes) {
  std::vector<Fact> facts = {relative_fact(element, "bandwidth", rates.read, kBandwidthFraction)};
  if (writes) {
    facts.push_back(relative_fact(element, "write_bandwidth", rates.read * rates.write_factor,
                                  kBandwidthFraction));
    facts.push_back(relative_fact(element, "copy_bandwidth", rates.read * rates.copy_factor,
                                  kBandwidthFraction));
  }
  return facts;
}

}  // namespace

std::vector<Fact> bandwidth_facts(const json& description) {
  if (!description.contains("throughput")) return {};
  const json& model = description.at("throughput");
  const double clock_hz = description.at("clock_khz").get<double>() * 1e3;
  const double sms = description.at("sm_count").get<double>();
  const json per_cache = model.value("cache_bytes_per_cycle", json::object());
  Rates rates{0, number_or(model, "write_factor", 1), number_or(model, "copy_factor", 1)};
  std::vector<Fact> facts;

  // SM caches (reads only: writes never stay in an SM's cache) and shared memory: per SM.
  const std::pair<const char*, const char*> sm_elements[] = {{"l1", "ca"}, {"tex", "tex"}, {"ro", "nc"}};
  for (const auto& [element, path] : sm_elements) {
    const auto cache = sm_cache_on(description, path);
    if (!cache || !per_cache.contains(cache->at("name").get<std::string>())) continue;
    const double per_sm = per_cache.at(cache->at("name").get<std::string>()).get<double>();
    facts.push_back(relative_fact(element, "bandwidth_per_sm_clock", per_sm, kBandwidthFraction));
    rates.read = per_sm * sms * clock_hz;
    for (Fact& f : level_facts(element, rates, false)) facts.push_back(std::move(f));
  }
  if (model.contains("shared_bytes_per_cycle")) {
    const double per_sm = model.at("shared_bytes_per_cycle").get<double>();
    facts.push_back(relative_fact("shared", "bandwidth_per_sm_clock", per_sm, kBandwidthFraction));
    rates.read = per_sm * sms * clock_hz;
    for (Fact& f : level_facts("shared", rates, true)) facts.push_back(std::move(f));
  }
  // Device-wide levels: the rate is the whole device's.
  if (const json* l2 = l2_of(description); l2 && per_cache.contains("L2")) {
    rates.read = per_cache.at("L2").get<double>() * clock_hz;
    for (Fact& f : level_facts("l2", rates, true)) facts.push_back(std::move(f));
  }
  if (model.contains("dram_bytes_per_cycle")) {
    rates.read = model.at("dram_bytes_per_cycle").get<double>() * clock_hz;
    for (Fact& f : level_facts("dram", rates, true)) facts.push_back(std::move(f));
    const double api_peak = number_or(model, "memory_clock_khz", 0) * 1e3 *
                            number_or(model, "memory_bus_width_bits", 0) / 8 * 2;
    if (api_peak > 0) {
      facts.push_back(relative_fact("dram", "peak_fraction", rates.read / api_peak,
                                    kBandwidthFraction));
    }
  }
  return facts;
}

}  // namespace memtopo::validation
