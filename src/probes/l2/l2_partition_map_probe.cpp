#include "probes/l2/l2_partition_map_probe.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/partition_map.hpp"
#include "analysis/stats.hpp"
#include "model/units.hpp"
#include "probes/core/constants.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// Lines each reader times per launch: enough that one stray load does not flip its verdict.
constexpr std::uint32_t kLinesPerReader = 32;
// Partitions found, checked from a second warmer each, and disagreeing SMs measured again.
constexpr std::size_t kMaxLaunches = 8;

FirstTouchLaunch corrected(const L2FirstTouchResult& result) {
  FirstTouchLaunch launch;
  launch.warmer_sm = result.warmer_sm;
  for (const L2ReaderTouches& touches : result.readers) {
    ReaderFirstTouch reader;
    reader.sm = touches.sm_id;
    for (const std::uint32_t cycles : touches.first_cycles) {
      reader.first.push_back(std::max(0.0, cycles - touches.overhead_cycles));
    }
    for (const std::uint32_t cycles : touches.second_cycles) {
      reader.second.push_back(std::max(0.0, cycles - touches.overhead_cycles));
    }
    launch.readers.push_back(std::move(reader));
  }
  return launch;
}

struct Launches {
  std::vector<FirstTouchLaunch> data;
  double clock_khz = 0;
};

Launches run_launches(ProbeContext& ctx) {
  const BackendLimits limits = ctx.backend.limits();
  std::uint32_t warmer = limits.sm_ids.empty() ? 0 : limits.sm_ids.front();
  Launches launches;
  for (;;) {
    ctx.check_interrupted();
    ctx.progress("l2.partition_map: launch " + std::to_string(launches.data.size() + 1) +
                 ", lines warmed on SM " + std::to_string(warmer));
    L2FirstTouchResult result;
    try {
      result = ctx.run_l2_first_touch({warmer, kLinesPerReader});
    } catch (const ExperimentError& error) {
      throw ProbeSkipped(error.what());
    }
    if (result.clock_khz > 0) launches.clock_khz = result.clock_khz;
    launches.data.push_back(corrected(result));
    const PartitionMap map = map_partitions(launches.data);
    const auto next = next_warmer(map, launches.data, kMaxLaunches);
    if (!next) return launches;
    warmer = *next;
  }
}

std::string method_of(const Launches& launches) {
  std::string warmers;
  for (const FirstTouchLaunch& launch : launches.data) {
    warmers += (warmers.empty() ? "" : ", ") + std::to_string(launch.warmer_sm);
  }
  return "cross-SM first touches: one block per SM; one SM writes " +
         std::to_string(kLinesPerReader) +
         " new lines per other SM (st.global.cg), the warmer SM loads them (ld.global.cg), then "
         "every other SM in turn times its first and second load of its own lines (clock64, "
         "minus the timing overhead); a reader is near when at most " +
         format_number(100 * kNearShareLimit, 0) +
         " % of its first touches lie above the two-mode threshold (Otsu, >= " +
         format_number(kFirstTouchModes.min_separation_sigmas, 0) +
         " robust sigmas, on every first touch, else on the readers' medians), far when at "
         "least " +
         format_number(100 * kFarShareLimit, 0) +
         " % do; a warmer far from every earlier one opens a partition, each SM joins the "
         "partition its verdicts agree with most; " +
         std::to_string(launches.data.size()) + " launches, warmers on SMs " + warmers;
}

nlohmann::json evidence_of(const PartitionMap& map, std::span<const FirstTouchLaunch> launches) {
  nlohmann::json per_launch = nlohmann::json::array();
  for (std::size_t k = 0; k < launches.size(); ++k) {
    std::vector<std::uint32_t> near, far, mixed;
    for (std::size_t r = 0; r < launches[k].readers.size(); ++r) {
      const std::uint32_t sm = launches[k].readers[r].sm;
      switch (map.verdicts[k][r]) {
        case TouchVerdict::near: near.push_back(sm); break;
        case TouchVerdict::far: far.push_back(sm); break;
        case TouchVerdict::mixed: mixed.push_back(sm); break;
      }
    }
    std::sort(near.begin(), near.end());
    std::sort(far.begin(), far.end());
    std::sort(mixed.begin(), mixed.end());
    nlohmann::json medians = nlohmann::json::array();  // [sm, p50 of its first touches]
    for (const ReaderFirstTouch& reader : launches[k].readers) {
      if (!reader.first.empty()) medians.push_back({reader.sm, summarize(reader.first).p50});
    }
    nlohmann::json entry = {{"warmer_sm", launches[k].warmer_sm},
                            {"near", near}, {"far", far}, {"mixed", mixed},
                            {"first_touch_p50_by_sm", medians}};
    entry["warmer_partition"] = map.warmer_partition[k] ? nlohmann::json(*map.warmer_partition[k])
                                                        : nlohmann::json(nullptr);
    per_launch.push_back(entry);
  }
  nlohmann::json sms = nlohmann::json::array();
  for (const SmPartition& sm : map.sms) {
    sms.push_back({{"sm", sm.sm},
                   {"partition", sm.partition ? nlohmann::json(*sm.partition) : nlohmann::json()},
                   {"agreeing", sm.agreeing},
                   {"verdicts", sm.verdicts}});
  }
  std::vector<double> seconds;
  for (const FirstTouchLaunch& launch : launches) {
    for (const ReaderFirstTouch& reader : launch.readers) {
      seconds.insert(seconds.end(), reader.second.begin(), reader.second.end());
    }
  }
  return {{"launches", per_launch},
          {"sms", sms},
          {"unclear", map.unclear},
          {"bimodal", map.split.bimodal},
          {"threshold_cycles", map.split.threshold},
          {"separation_sigmas", map.split.separation_sigmas},
          {"split", map.split.reason},
          {"mixed_verdicts", map.mixed},
          {"reader_verdicts", map.total_verdicts},
          {"second_touch_p50_cycles", seconds.empty() ? 0.0 : summarize(seconds).p50},
          {"reason", map.reason}};
}

// Agreeing verdicts, and the SMs the map places.
Confidence map_confidence(const PartitionMap& map) {
  Confidence confidence{agreement(map.agreeing, map.checked, "reader verdicts agreeing with the map")};
  const double placed = map.sms.empty() ? 0
                                        : 1.0 - static_cast<double>(map.unclear.size()) /
                                                    static_cast<double>(map.sms.size());
  confidence *= share(placed, "of the SMs in a partition");
  return confidence;
}

// The first touches of the readers with this verdict on that side of the threshold: a far
// reader's near lines (about half on an H100) are no far latency.
std::vector<double> first_touches_of(const PartitionMap& map,
                                     std::span<const FirstTouchLaunch> launches,
                                     TouchVerdict wanted) {
  std::vector<double> cycles;
  const bool above = wanted == TouchVerdict::far;
  for (std::size_t k = 0; k < launches.size(); ++k) {
    for (std::size_t r = 0; r < launches[k].readers.size(); ++r) {
      if (map.verdicts[k][r] != wanted) continue;
      for (const double first : launches[k].readers[r].first) {
        if (!map.split.bimodal || (first > map.split.threshold) == above) cycles.push_back(first);
      }
    }
  }
  return cycles;
}

Property latency_of(const std::string& name, std::span<const double> cycles, double clock_khz,
                    const std::string& method, const std::string& which) {
  Property p;
  p.name = name;
  p.unit = "cycles";
  p.spread = summarize(cycles);
  p.value = p.spread->p50;
  if (clock_khz > 0) p.seconds_value = p.spread->p50 / (clock_khz * 1e3);
  p.method = "first touches of " + which + " readers on the " + which +
             " side of the two-mode threshold; " + method;
  set_confidence(p, {share_within(cycles, p.spread->p50, kDescribedBand, which + " first touches")});
  return p;
}

void report(Element& l2, const PartitionMap& map, const Launches& launches) {
  const std::string method = method_of(launches);
  const nlohmann::json evidence = evidence_of(map, launches.data);
  Property table;
  table.name = "partition_map";
  table.unit = "";
  table.method = method;
  table.evidence = evidence;
  if (!map.conclusive) {
    table.inconclusive = true;
    table.note = map.reason;
    l2.set(std::move(table));
    return;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t p = 0; p < map.partitions.size(); ++p) {
    rows.push_back({{"partition", p}, {"sms", map.partitions[p]}});
  }
  table.value = rows;
  const Confidence confidence = map_confidence(map);
  set_confidence(table, confidence);
  if (!map.unclear.empty()) table.note = "unclear: SMs " + sm_ranges(map.unclear);

  Property partitions;
  partitions.name = "partitions";
  partitions.unit = "";
  partitions.value = map.partitions.size();
  partitions.method = "the partitions of l2.partition_map; " + method;
  partitions.evidence = {{"reason", map.reason}};
  if (const Property* one_chase = l2.find("partitions")) {
    partitions.evidence["one_sm_chase"] = {{"value", one_chase->value},
                                           {"inconclusive", one_chase->inconclusive},
                                           {"note", one_chase->note}};
  }
  set_confidence(partitions, confidence);
  l2.set(std::move(partitions));

  const auto near = first_touches_of(map, launches.data, TouchVerdict::near);
  if (!near.empty()) {
    l2.set(latency_of("near_latency", near, launches.clock_khz, method, "near"));
  }
  const auto far = first_touches_of(map, launches.data, TouchVerdict::far);
  if (!far.empty()) l2.set(latency_of("far_latency", far, launches.clock_khz, method, "far"));
  l2.set(std::move(table));
}

}  // namespace

std::string L2PartitionMapProbe::description() const {
  return "which L2 partition is near each SM, and near and far latency, from cross-SM first "
         "touches";
}

void L2PartitionMapProbe::run(ProbeContext& ctx) {
  const Launches launches = run_launches(ctx);
  const PartitionMap map = map_partitions(launches.data);
  report(element_for(ctx.topology, "l2"), map, launches);
}

}  // namespace memtopo
