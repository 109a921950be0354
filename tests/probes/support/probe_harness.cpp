#include "support/probe_harness.hpp"

#include "support/plan_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include "backend/sim/sim_backend.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/inheritance.hpp"
#include "probes/core/probe.hpp"

namespace memtopo::testing {

std::string source_path(const std::string& relative) {
  return std::string(MEMTOPO_SOURCE_DIR) + "/" + relative;
}

const nlohmann::json& SimTruth::cache(const std::string& name) const {
  for (const auto& c : description.at("caches")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("description has no cache named " + name);
}

double SimTruth::jitter() const {
  return description.at("noise").value("jitter_cycles", 0.0);
}

double SimTruth::dram_bytes_per_second() const {
  return description.at("throughput").at("dram_bytes_per_cycle").get<double>() *
         number("clock_khz") * 1e3;
}

SimTruth read_truth(const std::string& relative_path) {
  std::ifstream in(source_path(relative_path));
  if (!in) throw std::runtime_error("cannot read " + relative_path);
  return {nlohmann::json::parse(in)};
}

std::vector<Trace> CountingBackend::run(std::span<const ChaseSpec> batch) {
  ++batches;
  chases += batch.size();
  for (const ChaseSpec& spec : batch) loads += loads_of(spec);
  const std::clock_t start = std::clock();
  auto traces = inner_.run(batch);
  backend_cpu_seconds += static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  return traces;
}

std::vector<Trace> CountingBackend::run_warp_access(std::span<const WarpAccessSpec> batch) {
  ++warp_access_batches;
  for (const WarpAccessSpec& spec : batch) warp_accesses += accesses_of(spec);
  const std::clock_t start = std::clock();
  auto traces = inner_.warp_access()->run_warp_access(batch);
  backend_cpu_seconds += static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  return traces;
}

StreamResult CountingBackend::run_stream(const StreamSpec& spec) {
  stream_launches += spec.warmup_launches + spec.timed_launches;
  const std::clock_t start = std::clock();
  StreamResult result = inner_.streams()->run_stream(spec);
  backend_cpu_seconds += static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  return result;
}

namespace {

// The counters so far, under the probe's id; the caller subtracts the ones before it.
ProbeWork work_so_far(const std::string& probe_id, const CountingBackend& backend) {
  return {probe_id,
          backend.batches,
          backend.chases,
          backend.loads,
          backend.warp_access_batches,
          backend.warp_accesses,
          backend.stream_launches};
}

ProbeWork difference(ProbeWork after, const ProbeWork& before) {
  after.batches -= before.batches;
  after.chases -= before.chases;
  after.loads -= before.loads;
  after.warp_access_batches -= before.warp_access_batches;
  after.warp_accesses -= before.warp_accesses;
  after.stream_launches -= before.stream_launches;
  return after;
}

}  // namespace

ProbeRun run_on_sim(const std::string& relative_path, const std::vector<std::string>& ids,
                    std::uint64_t seed) {
  const std::clock_t cpu_start = std::clock();
  auto sim = make_sim_backend_from_file(source_path(relative_path));
  CountingBackend backend(*sim);
  ProbeRun run;
  run.topology.device = backend.facts();
  ProbeContext ctx{backend, run.topology, [](const std::string&) {}, [] { return false; },
                   seed,    nullptr};
  // Every run of every probe test checks that no value came out surer than its plan's inputs.
  PlanInputsCheck plan_check(run.topology);
  const auto start = std::chrono::steady_clock::now();
  for (const auto& probe : all_probes()) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), probe->id()) == ids.end()) continue;
    const ProbeWork before = work_so_far(probe->id(), backend);
    try {
      run_inheriting(*probe, ctx);  // as the runner does
    } catch (const ProbeSkipped& skipped) {
      run.skipped[probe->id()] = skipped.what();
    }
    plan_check.probe_finished(probe->id());
    run.work.push_back(difference(work_so_far(probe->id(), backend), before));
  }
  for (const std::string& violation : plan_check.violations()) {
    ADD_FAILURE() << relative_path << ": " << violation;
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.loads = backend.loads;
  run.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  run.backend_cpu_seconds = backend.backend_cpu_seconds;
  run.batches = backend.batches;
  return run;
}

const Property& property(const ProbeRun& run, const std::string& element, const std::string& name) {
  const Element* e = run.topology.find(element);
  const Property* p = e ? e->find(name) : nullptr;
  if (!p) {
    ADD_FAILURE() << "no property " << element << "." << name;
    throw std::runtime_error("missing property " + element + "." + name);
  }
  return *p;
}

nlohmann::json own_factors(const Property& p) {
  nlohmann::json factors = p.evidence.value("confidence_factors", nlohmann::json::array());
  if (!factors.empty() && factors.back().at("rule") == "inherited" &&
      factors.back().at("inputs").get<std::string>().find("the plan read") != std::string::npos) {
    factors.erase(factors.end() - 1);
  }
  return factors;
}

double own_confidence(const Property& p) {
  double product = 1;
  for (const auto& factor : own_factors(p)) product *= factor.at("value").get<double>();
  return product;
}

std::string sim_file_test_name(const std::string& path) {
  std::string name = path.substr(path.rfind('/') + 1);
  name = name.substr(0, name.find('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace memtopo::testing
