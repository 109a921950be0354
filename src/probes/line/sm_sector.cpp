// <element>.sector of an SM-local cache: the spacing of misses in a 4 B-stride chase whose timed
// window an eviction chain has pushed out of the cache first.
#include <algorithm>
#include <cstdio>

#include "analysis/linesize.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/constants.hpp"
#include "probes/line/line_constants.hpp"
#include "probes/line/line_measurement.hpp"

namespace memtopo {
namespace {

// The chain: this many times the size; timed loads at 4 B stride.
constexpr std::uint64_t kSectorFootprintFactor = 2;
constexpr std::uint32_t kSectorTimedLoads = 4096;

struct SectorChain {
  ChaseSpec spec;
  std::uint64_t footprint_bytes = 0;
  std::uint32_t timed_loads = 0;
};

// A window of `timed` words at 4 B steps (the timed part: a sequential 4 B-stride chase), then
// the rest of the footprint at kSmallestLineBytes, back to the window. The one warm pass walks
// both; the eviction part (2 x the size, every line of it touched) pushes the window out of the
// cache before the timed loads start at its first word. Walking the eviction part at 4 B would
// cost 4 x the loads for the same eviction.
SectorChain plan_sector_chain(const LineMeasurement& m, std::uint64_t size) {
  const BackendLimits& limits = m.limits();
  const std::uint64_t footprint = round_down(
      std::min(size * kSectorFootprintFactor + std::uint64_t{kSectorTimedLoads} * kWordBytes,
               limits.max_footprint_bytes),
      kWordBytes);
  if (footprint <= size) {
    throw ProbeSkipped("the backend cannot chase beyond " + format_bytes(size) +
                       ", the measured size");
  }
  const std::uint32_t timed = std::min<std::uint32_t>(
      kSectorTimedLoads, static_cast<std::uint32_t>(std::min<std::uint64_t>(
                             limits.max_timed_loads, footprint / kWordBytes)));
  std::vector<std::uint32_t> words;
  for (std::uint32_t w = 0; w < timed; ++w) words.push_back(w);
  for (std::uint64_t byte = std::uint64_t{timed} * kWordBytes + kSmallestLineBytes;
       byte < footprint; byte += kSmallestLineBytes) {
    words.push_back(static_cast<std::uint32_t>(byte / kWordBytes));
  }
  return {make_chase(m.target().path, footprint, kWordBytes)
              .visiting(std::move(words))
              .timed_loads(timed),
          footprint, timed};
}

std::string sector_method(const LineMeasurement& m, const SectorChain& chain) {
  char method[360];
  std::snprintf(method, sizeof method,
                "fine-grained pointer chase via %s: %u timed loads at 4 B stride, sequential, "
                "after 1 warm pass over them and a %s chain (%llu x the measured size, %u B "
                "steps) that evicts them; the mode of the byte gaps between consecutive accesses "
                "slower than %.1f cycles (fit-rule threshold)",
                std::string(to_string(m.target().path)).c_str(), chain.timed_loads,
                format_bytes(chain.footprint_bytes).c_str(),
                static_cast<unsigned long long>(kSectorFootprintFactor), kSmallestLineBytes,
                m.rule().threshold_cycles);
  return method;
}

}  // namespace

void measure_sector(LineMeasurement& m) {
  const std::uint64_t size = m.size_or_skip();
  SectorChain chain = plan_sector_chain(m, size);
  auto specs = m.baseline_specs();
  specs.push_back(chain.spec);
  m.ctx().progress(m.id() + ": 4 B stride over " + format_bytes(chain.footprint_bytes));
  const auto traces = m.run_batches(specs, "gaps");
  m.take_baselines(traces[0], traces[1]);
  const Trace& trace = traces[2];
  const auto cycles = corrected_cycles(trace);
  const double threshold = m.rule().threshold_cycles;
  const GapEstimate gaps = estimate_fetch_granularity(cycles, trace.indices, threshold);

  Property p;
  p.name = "sector";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = sector_method(m, chain);
  p.evidence = gap_evidence(gaps, threshold);
  p.evidence.update({{"footprint_bytes", chain.footprint_bytes},
                     {"size_bytes", size},
                     {"stride_bytes", kWordBytes},
                     {"eviction_step_bytes", kSmallestLineBytes},
                     {"timed_loads", chain.timed_loads},
                     {"sm", trace.sm_id},
                     {"cost", m.cost_evidence()}});
  p.evidence.update(m.baseline_evidence());
  set_granularity(p, gaps, cycles);
  m.publish(std::move(p));
}

}  // namespace memtopo
