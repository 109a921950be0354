#include "probes/hopper/tma_probe.hpp"

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

constexpr std::uint32_t kKiB = 1024;
constexpr std::uint32_t kElementBytes = 4;  // 2D tiles: n x n elements of 4 B
constexpr std::uint32_t k1dTileKiB[] = {1, 4, 16, 64};
constexpr std::uint32_t k2dTileEdges[] = {32, 64, 128};
// The source stays in L2: at most this share of the L2 the API reports.
constexpr std::uint64_t kSourceShareOfL2 = 4;
constexpr std::uint64_t kMaxSourceBytes = 16ull << 20;
constexpr std::uint32_t kLatencySamples = 16;  // tiles, each copied once untimed first
// ... at this many placements of the source (as for throughput), pooled: a 2D tile's p50 moved
// by 20 cycles (2 %) between runs whose 16 samples spanned 15-19 cycles p5-p95 each
// (docs/results/nvidia-h200/2026-11-25_f70b0e4). Placement does not explain it all: at 2615002
// one process read that tile 1027-1030 cycles at all 3 placements, the others 1019-1023 (which
// SM ran the block is not pinned); pooled, the rows came out within spread.
constexpr std::uint32_t kLatencyPlacements = 3;
// Throughput launches per tile shape, each at least this long. 64 tiles per block lasted 17-40
// us on an H200: 9 launches agreed within a run, yet one run of five was 10-15 % slower in every
// row while its bytes per SM cycle agreed to 0.1 % (docs/results/nvidia-h200/2026-11-24_12b85b6):
// the launch's start and end, not the copies, had moved.
constexpr std::uint32_t kThroughputLaunchesPerPlacement = 3;
constexpr double kMinThroughputLaunchSeconds = 1e-3;
// ... over this many placements of the source, each a source's length further into one
// allocation. Lengthened to 1 ms, the 16 and 64 KiB tiles ran at the L2's rate, and that moved
// by up to 37 % between runs (8.8-12.0 TB/s) while each run's launches agreed within a few %
// (2026-11-24_15a7c10). The guess was the source's pages (an 8 MiB source is four 2 MiB pages
// of a hashed L2); the placements show such a spread in some runs, but at c454eda all 3
// placements of one call gave 11.2 TB/s while other calls gave 9.1: placement does not explain
// it all (docs/method.md, "TMA").
constexpr std::uint32_t kThroughputPlacements = 3;

const char* kTileLatencyMethod =
    "one block copies 16 tiles global -> shared, tile after tile, each once untimed first and "
    "then timed (different addresses, so either L2 partition, as a kernel's tiles are), at 3 "
    "placements of the source (a source's length apart in one allocation), pooled: "
    "bulk_1d: cp.async.bulk by one thread, tensor_2d: cp.async.bulk.tensor.2d through a tensor "
    "map (cuTensorMapEncodeTiled, 4 B elements, no swizzle), both from issue to the mbarrier's "
    "completion; plain_loads: 512 threads, ld.global.cg v4 -> st.shared v4, then __syncthreads; "
    "%clock64 cycles per copy; the source is warm in L2";
const char* kTileThroughputMethod =
    "one block per SM copies tiles of an L2-resident source (a quarter of the API's L2, at most "
    "16 MiB): TMA with up to 4 copies in flight per block (one mbarrier each), plain loads by "
    "512 threads; 64 tiles per block, or as many more as make a launch last 1 ms (from the "
    "second of two warm launches); the source at 3 placements, each one source further into "
    "one allocation (other pages; evidence placements), 3 launches each after a warm-up at the "
    "launch's length: each launch's rate is the sum over its blocks of a block's bytes over its "
    "own %globaltimer span (the event-timed rate, which adds the launch's start and end, is "
    "evidence event_timed), and bytes / %clock64 cycles per SM (median over the SMs); value and "
    "spread over each launch's rate over its SM clock (%clock64 cycles "
    "per %globaltimer ns, median over the blocks) x the run's SM clocks: the rows bound by the "
    "SM (small tiles, plain loads: their bytes per SM cycle agree to 0.05 % between runs) move "
    "with the SM clock, which moves between phases";

struct TileShape {
  TileCopy method;
  std::uint32_t rows;
  std::uint32_t row_bytes;
};

std::vector<TileShape> tile_shapes() {
  std::vector<TileShape> shapes;
  for (const std::uint32_t kib : k1dTileKiB) {
    for (const TileCopy method : {TileCopy::bulk_1d, TileCopy::plain_loads})
      shapes.push_back({method, 1, kib * kKiB});
  }
  for (const std::uint32_t edge : k2dTileEdges) {
    for (const TileCopy method : {TileCopy::tensor_2d, TileCopy::plain_loads})
      shapes.push_back({method, edge, edge * kElementBytes});
  }
  return shapes;
}

TileCopySpec spec_of(const TileShape& shape, const DeviceFacts& facts) {
  TileCopySpec spec;
  spec.method = shape.method;
  spec.rows = shape.rows;
  spec.row_bytes = shape.row_bytes;
  spec.samples = kLatencySamples;
  spec.timed_launches = kThroughputLaunchesPerPlacement;
  spec.min_launch_seconds = kMinThroughputLaunchSeconds;
  spec.source_bytes =
      std::min(kMaxSourceBytes,
               floor_power_of_two(std::max<std::uint64_t>(facts.l2_bytes / kSourceShareOfL2, 1)));
  return spec;
}

nlohmann::json shape_json(const TileShape& shape) {
  return {{"method", tile_copy_name(shape.method)},
          {"rows", shape.rows},
          {"row_bytes", shape.row_bytes},
          {"tile_bytes", std::uint64_t{shape.rows} * shape.row_bytes}};
}

enum class TmaQuestion { latency, throughput };

class TmaProbe final : public HopperProbe {
 public:
  explicit TmaProbe(TmaQuestion question) : question_(question) {}
  std::string id() const override {
    return question_ == TmaQuestion::latency ? "tma.copy_latency" : "tma.copy_throughput";
  }
  std::string description() const override {
    return question_ == TmaQuestion::latency
               ? "TMA: cycles of one tile copy global -> shared, 1D bulk and 2D tensor vs loads"
               : "TMA: bytes/s of tile copies with every SM copying, vs plain loads";
  }

  void run(ProbeContext& ctx) override {
    HopperExperiments& hx = require_experiments(ctx, "TMA");
    nlohmann::json rows = nlohmann::json::array();
    std::vector<double> row_confidences;
    for (const TileShape& shape : tile_shapes()) {
      ctx.check_interrupted();
      nlohmann::json row = shape_json(shape);
      const TileCopySpec spec = spec_of(shape, ctx.backend.facts());
      try {
        const std::vector<double> samples = measure(ctx, hx, spec, row);
        const Spread spread = summarize(samples);
        const ConfidenceFactor described =
            share_within(samples, spread.p50, kDescribedWithin, "samples within 10 % of the p50");
        row["p50"] = spread.p50;
        row["spread"] = spread_evidence(spread);
        row["confidence"] = described.value;
        row_confidences.push_back(described.value);
      } catch (const ExperimentError& e) {
        row["skipped"] = e.what();
      }
      rows.push_back(row);
    }
    if (row_confidences.empty()) throw ProbeSkipped("no tile copy ran: " + rows.dump());
    Property p;
    p.name = question_ == TmaQuestion::latency ? "copy_latency" : "copy_throughput";
    p.unit = question_ == TmaQuestion::latency ? "cycles" : "bytes/second";
    p.source = Source::measured;
    p.method = question_ == TmaQuestion::latency ? kTileLatencyMethod : kTileThroughputMethod;
    p.value = rows;
    p.evidence["source_bytes"] = spec_of(tile_shapes().front(), ctx.backend.facts()).source_bytes;
    set_confidence(p, Confidence{weakest_of(row_confidences, "every tile's samples")});
    element_for(ctx.topology, "tma").set(std::move(p));
  }

 private:
  std::vector<double> measure(ProbeContext& ctx, HopperExperiments& hx, const TileCopySpec& spec,
                              nlohmann::json& row) const {
    if (question_ == TmaQuestion::latency) return latency_at_placements(hx, spec, row);
    std::vector<double> rates, event_rates, per_cycle, clocks;
    nlohmann::json placements = nlohmann::json::array();
    for (std::uint32_t k = 0; k < kThroughputPlacements; ++k) {
      TileCopySpec placed = spec;
      placed.source_offset_bytes = k * spec.source_bytes;
      const TileCopyThroughputResult r = hx.run_tile_copy_throughput(placed);
      // The blocks' own spans, not the events': the launch's start and end moved the event-timed
      // rate of a 1 KiB plain-loads row by 1.2 % between processes whose bytes per SM cycle agreed
      // to 0.04 % (docs/results/nvidia-h200-x2/2026-11-29_2ac360e, run 5).
      const std::vector<double>& launch_rates =
          r.block_bytes_per_second.empty() ? r.bytes_per_second : r.block_bytes_per_second;
      rates.insert(rates.end(), launch_rates.begin(), launch_rates.end());
      event_rates.insert(event_rates.end(), r.bytes_per_second.begin(), r.bytes_per_second.end());
      per_cycle.insert(per_cycle.end(), r.bytes_per_cycle_per_sm.begin(),
                       r.bytes_per_cycle_per_sm.end());
      clocks.insert(clocks.end(), r.sm_clock_khz.begin(), r.sm_clock_khz.end());
      placements.push_back({{"source_offset_bytes", placed.source_offset_bytes},
                            {"p50", median(launch_rates)},
                            {"tiles_per_block", r.tiles_per_block}});
      row["blocks"] = r.blocks;
    }
    row["bytes_per_cycle_per_sm"] = median(per_cycle);
    row["event_timed"] = spread_evidence(summarize(event_rates));
    row["placements"] = placements;
    ctx.sm_clocks->add(clocks);
    const std::vector<double> at_clocks =
        ctx.sm_clocks->at_run_clocks(rates, clocks, kRunClockQuantiles);
    if (at_clocks.empty()) return rates;
    row["launch_spread"] = spread_evidence(summarize(rates));
    return at_clocks;
  }

  static std::vector<double> latency_at_placements(HopperExperiments& hx, const TileCopySpec& spec,
                                                   nlohmann::json& row) {
    std::vector<double> cycles;
    nlohmann::json placements = nlohmann::json::array();
    for (std::uint32_t k = 0; k < kLatencyPlacements; ++k) {
      TileCopySpec placed = spec;
      placed.source_offset_bytes = k * spec.source_bytes;
      const std::vector<double> c = hx.run_tile_copy_latency(placed).cycles;
      cycles.insert(cycles.end(), c.begin(), c.end());
      placements.push_back(
          {{"source_offset_bytes", placed.source_offset_bytes}, {"p50", median(c)}});
    }
    row["placements"] = placements;
    return cycles;
  }

  TmaQuestion question_;
};

}  // namespace

std::vector<std::unique_ptr<Probe>> tma_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  probes.push_back(std::make_unique<TmaProbe>(TmaQuestion::latency));
  probes.push_back(std::make_unique<TmaProbe>(TmaQuestion::throughput));
  return probes;
}

}  // namespace memtopo
