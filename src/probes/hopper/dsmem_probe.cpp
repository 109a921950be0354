#include "probes/hopper/dsmem_probe.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/stats.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "run/sm_clock_log.hpp"
#include "probes/hopper/hopper_probe.hpp"

namespace memtopo {
namespace {

// The cluster sizes measured: the portable ones and the largest non-portable one Hopper has.
constexpr std::uint32_t kClusterSizes[] = {2, 4, 8, 16};
// A cluster larger than this is rejected by CUDA whatever the device (the launch's own limit).
constexpr std::uint32_t kLargestClusterTried = 32;
// The bandwidth headline is the smallest cluster's: pairs of blocks reading each other.
constexpr std::uint32_t kHeadlineClusterSize = 2;
// Passes over each block's shared memory per launch: about a millisecond or more, so that the
// launch's start and end weigh little. An H200's own shared memory streams at 26 TB/s: 256
// passes lasted 92 us, and the rate moved by 3 % between runs whose bytes per cycle agreed to
// 0.05 % (docs/results/nvidia-h200/2026-11-24_db65700); 2048 passes (0.7 ms) still moved by
// 1 % (2026-11-24_12b85b6), with the SM clock. Remote streams are 6 times slower: 256 passes
// (0.27 ms) moved by 1.3 % between runs whose bytes per cycle agreed to 0.15 %
// (2026-11-24_15a7c10).
constexpr std::uint32_t kLocalPasses = 4096;
constexpr std::uint32_t kRemotePasses = 1024;
constexpr std::uint32_t kBandwidthLaunches = 9;

const char* kLatencyMethod =
    "cluster latency: clusters of 2, 4, 8 and 16 blocks (16 with the non-portable opt-in) "
    "launched with cudaLaunchKernelEx; each block builds a ring of shared::cluster addresses "
    "(mapa) 128 B apart in its own shared memory; lane 0 of rank 0 chases (ld.shared::cluster) "
    "its own ring, then every other rank's: 64 warm loads, then 16 samples of 256 dependent "
    "loads timed with %clock64 (cycles per load, the clock read amortised over 256 loads); "
    "%smid of every rank recorded";
const char* kMaxSizeMethod =
    "launch success: the cluster latency kernel launched at 2, 4, 8, 16 blocks, then at one "
    "block more than the largest that launched; the largest that launched, beside "
    "cudaOccupancyMaxPotentialClusterSize (non-portable sizes allowed)";
const std::string kBandwidthMethod =
    "cluster stream: as many clusters as fit at once (cudaOccupancyMaxActiveClusters), every "
    "block of 1024 threads reading 32 KiB of shared memory with ld.shared::cluster.v4 (16 B), " +
    std::to_string(kLocalPasses) + " times its own (local) or " + std::to_string(kRemotePasses) +
    " times its neighbour's, rank + 1 (remote); bytes / event time of " +
    std::to_string(kBandwidthLaunches) +
    " timed launches after one warm-up, and bytes / %clock64 cycles per SM (median over the SMs)";
// Own shared memory is read at a fixed number of bytes per SM cycle, so its rate moves with the
// SM clock, which moves between phases (1961-1980 MHz in one H200 discovery) but not over one
// probe's launches: the rates' spreads take in the run's clocks, as the SM-local levels' do.
// Remote reads are too: their bytes per SM cycle agree to 0.2 % between runs.
const char* kAtRunClocks =
    "; value and spread over each launch's rate over its SM clock (%clock64 cycles per "
    "%globaltimer ns, median over the blocks) x the run's SM clocks";

struct SizeLatency {
  std::uint32_t cluster_size;
  ClusterLatencyResult result;
};

nlohmann::json placement_row(const SizeLatency& s) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankLatency& r : s.result.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"sm", r.sm_id},
                     {"cycles_p50", median(r.cycles_per_load)},
                     {"own", r.rank == 0}});
  }
  return {{"cluster_size", s.cluster_size}, {"ranks", ranks}};
}

class DsmemLatencyProbe final : public HopperProbe {
 public:
  std::string id() const override { return "dsmem.latency"; }
  std::string description() const override {
    return "distributed shared memory: own and remote latency in clusters of 2..16, placement";
  }

  void run(ProbeContext& ctx) override {
    HopperExperiments& hx = require_experiments(ctx, "thread-block clusters");
    const std::uint32_t occupancy_max = hx.occupancy_max_cluster_size();
    std::vector<SizeLatency> measured;
    nlohmann::json tried = nlohmann::json::array();
    auto attempt = [&](std::uint32_t size) {
      ctx.check_interrupted();
      ctx.progress("dsmem.latency: cluster of " + std::to_string(size));
      ClusterLatencySpec spec;
      spec.cluster_size = size;
      const ClusterLaunchCheck check = hx.check_cluster_launch(size);
      nlohmann::json row = {{"cluster_size", size},
                            {"occupancy_max_active_clusters", check.max_active_clusters},
                            {"non_portable", check.non_portable}};
      if (!check.reason.empty()) row["occupancy_reason"] = check.reason;
      try {
        measured.push_back({size, hx.run_cluster_latency(spec)});
        row["launched"] = true;
      } catch (const ExperimentError& e) {
        row["launched"] = false;
        row["reason"] = e.what();
      }
      tried.push_back(row);
      return row["launched"].get<bool>();
    };
    for (const std::uint32_t size : kClusterSizes) attempt(size);
    if (measured.empty()) throw ProbeSkipped("no cluster launched: " + tried.dump());
    const std::uint32_t largest = measured.back().cluster_size;
    const bool bounded = largest < kLargestClusterTried && !attempt(largest + 1);

    Element& dsmem = element_for(ctx.topology, "dsmem");
    write_latencies(ctx, dsmem, measured);
    write_max_size(dsmem, measured, tried, occupancy_max, bounded);
  }

 private:
  static void write_latencies(ProbeContext& ctx, Element& dsmem,
                              const std::vector<SizeLatency>& measured) {
    std::vector<double> own, remote;
    nlohmann::json placement = nlohmann::json::array();
    std::vector<Spread> remote_ranks;
    for (const SizeLatency& s : measured) {
      placement.push_back(placement_row(s));
      for (const RankLatency& r : s.result.ranks) {
        auto& into = r.rank == 0 ? own : remote;
        into.insert(into.end(), r.cycles_per_load.begin(), r.cycles_per_load.end());
        if (r.rank != 0) remote_ranks.push_back(summarize(r.cycles_per_load));
      }
    }
    const double clock_khz = ctx.backend.current_sm_clock_khz();
    Property local = measured_property("latency_local", "cycles", kLatencyMethod, own);
    local.note =
        "rank 0's own shared memory through ld.shared::cluster (shared.latency is the "
        "plain ld.shared)";
    if (clock_khz > 0) local.seconds_value = local.spread->p50 / (clock_khz * 1e3);
    const Spread local_spread = *local.spread;
    dsmem.set(std::move(local));
    if (remote.empty()) return;

    Property far = measured_property("latency_remote", "cycles", kLatencyMethod, remote);
    std::size_t slower = 0;
    for (const Spread& rank : remote_ranks) slower += clearly_faster(local_spread, rank) ? 1 : 0;
    Confidence confidence{
        share_within(remote, far.spread->p50, kDescribedWithin,
                     "remote samples within 10 % of "
                     "the p50, every rank pooled"),
        agreement(slower, remote_ranks.size(), "remote ranks clearly slower than the own block")};
    set_confidence(far, confidence);
    far.evidence["placement"] = placement;
    far.evidence["remote_ranks"] = remote_ranks.size();
    if (clock_khz > 0) far.seconds_value = far.spread->p50 / (clock_khz * 1e3);
    dsmem.set(std::move(far));

    Property where;
    where.name = "placement";
    where.unit = "";
    where.source = Source::measured;
    where.method =
        "%smid and %cluster_ctarank of every block of the latency kernel's clusters, "
        "with the p50 cycles per load rank 0 saw to it";
    where.value = placement;
    std::size_t ranks = 0, own_sm = 0;
    for (const SizeLatency& s : measured) {
      std::vector<std::uint32_t> sms;
      for (const RankLatency& r : s.result.ranks) sms.push_back(r.sm_id);
      ranks += sms.size();
      std::sort(sms.begin(), sms.end());
      own_sm += static_cast<std::size_t>(std::unique(sms.begin(), sms.end()) - sms.begin());
    }
    set_confidence(where, Confidence{agreement(own_sm, ranks, "blocks on an SM of their own")});
    dsmem.set(std::move(where));
  }

  static void write_max_size(Element& dsmem, const std::vector<SizeLatency>& measured,
                             const nlohmann::json& tried, std::uint32_t occupancy_max,
                             bool bounded) {
    std::uint32_t largest = 0;
    for (const SizeLatency& s : measured) largest = std::max(largest, s.cluster_size);
    Property p;
    p.name = "max_cluster_size";
    p.unit = "blocks";
    p.source = Source::measured;
    p.method = kMaxSizeMethod;
    p.value = largest;
    p.evidence = {{"tried", tried}, {"occupancy_max_potential_cluster_size", occupancy_max}};
    if (!bounded) {
      p.inconclusive = true;
      p.bound = Bound::lower;
      p.note = "every size tried launched: the largest is a lower bound";
    } else {
      set_confidence(p, Confidence{methods_agreeing(
                            largest == occupancy_max ? 2 : 1, 2,
                            "launch success and cudaOccupancyMaxPotentialClusterSize")});
    }
    dsmem.set(std::move(p));
  }
};

class DsmemBandwidthProbe final : public HopperProbe {
 public:
  std::string id() const override { return "dsmem.bandwidth"; }
  std::string description() const override {
    return "distributed shared memory: bandwidth of remote and own shared memory, all SMs busy";
  }
  std::vector<std::string> needs() const override { return {"dsmem.latency"}; }

  void run(ProbeContext& ctx) override {
    HopperExperiments& hx = require_experiments(ctx, "thread-block clusters");
    const auto largest = finding_count(ctx.topology, "dsmem", "max_cluster_size");
    // Sizes up to a lower bound launch whatever the largest is (core/findings.hpp).
    const Property* bound = bound_finding(ctx.topology, "dsmem", "max_cluster_size", Bound::lower);
    if (!largest && !bound) throw ProbeSkipped("no cluster launched (dsmem.latency)");
    const auto limit = largest ? *largest : bound->value.get<std::uint64_t>();
    nlohmann::json rows = nlohmann::json::array();
    Element& dsmem = element_for(ctx.topology, "dsmem");
    for (const bool remote : {false, true}) {
      for (const std::uint32_t size : kClusterSizes) {
        if (size > limit) continue;
        ctx.check_interrupted();
        ClusterBandwidthSpec spec;
        spec.cluster_size = size;
        spec.remote = remote;
        spec.passes = remote ? kRemotePasses : kLocalPasses;
        spec.timed_launches = kBandwidthLaunches;
        ClusterBandwidthResult r;
        try {
          r = hx.run_cluster_bandwidth(spec);
        } catch (const ExperimentError& e) {  // e.g. no cluster of 1024-thread blocks fits
          rows.push_back({{"cluster_size", size}, {"remote", remote}, {"skipped", e.what()}});
          continue;
        }
        rows.push_back({{"cluster_size", size},
                        {"remote", remote},
                        {"bytes_per_second", spread_evidence(summarize(r.bytes_per_second))},
                        {"bytes_per_cycle_per_sm", median(r.bytes_per_cycle_per_sm)},
                        {"clusters", r.clusters},
                        {"blocks", r.blocks},
                        {"sms_used", r.sms_used}});
        if (size != kHeadlineClusterSize) continue;
        ctx.sm_clocks->add(r.sm_clock_khz);
        const std::vector<double> at_clocks =
            ctx.sm_clocks->at_run_clocks(r.bytes_per_second, r.sm_clock_khz, kRunClockQuantiles);
        Property p = measured_property(
            remote ? "bandwidth_remote" : "bandwidth_local", "bytes/second",
            at_clocks.empty() ? kBandwidthMethod : kBandwidthMethod + kAtRunClocks,
            at_clocks.empty() ? r.bytes_per_second : at_clocks);
        if (!at_clocks.empty()) {
          p.evidence["launch_spread"] = spread_evidence(summarize(r.bytes_per_second));
          p.evidence["launch_sm_clock_khz"] = r.sm_clock_khz;
          p.evidence["run_sm_clock_khz"] = ctx.sm_clocks->evidence(kRunClockQuantiles);
        }
        p.evidence["cluster_size"] = size;
        p.evidence["bytes_per_cycle_per_sm"] = spread_evidence(summarize(r.bytes_per_cycle_per_sm));
        p.evidence["blocks"] = r.blocks;
        p.evidence["sms_used"] = r.sms_used;
        p.evidence["bytes_per_launch"] = r.bytes_per_launch;
        dsmem.set(std::move(p));
      }
    }
    for (const char* name : {"bandwidth_local", "bandwidth_remote"}) {
      if (Property* p = dsmem.find(name)) p->evidence["by_cluster_size"] = rows;
    }
  }
};

}  // namespace

std::vector<std::unique_ptr<Probe>> dsmem_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  probes.push_back(std::make_unique<DsmemLatencyProbe>());
  probes.push_back(std::make_unique<DsmemBandwidthProbe>());
  return probes;
}

}  // namespace memtopo
