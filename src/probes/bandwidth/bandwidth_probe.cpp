#include "probes/bandwidth/bandwidth_probe.hpp"

#include <algorithm>
#include <functional>
#include <optional>

#include "model/units.hpp"
#include "probes/bandwidth/bandwidth_findings.hpp"
#include "probes/bandwidth/bandwidth_sweep.hpp"
#include "probes/bandwidth/l2_residency.hpp"
#include "probes/bandwidth/launch_search.hpp"
#include "probes/bandwidth/shape_at_footprints.hpp"
#include "probes/bandwidth/stream_meter.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// Timed launches per configuration the search measures, and of the best one at the end (its
// spread is the finding's): the search compares medians, the finding needs percentiles.
constexpr std::uint32_t kSearchTimedLaunches = 3;
constexpr std::uint32_t kFinalTimedLaunches = 9;
// The final launches last longer than the search's (about 1 ms): at 4 ms the launch overhead
// and the ramp at each launch's start and end cost a few tenths of a percent, not 1-2 %.
constexpr double kFinalLaunchSeconds = 4e-3;
// DRAM one-pass configurations measured again with the final launches (try_one_pass), the
// triad's as many: with 2, one H200 discovery of six (8532a95) read the triad 0.8 % low, its
// final winner elsewhere (1024 threads x unroll 1, 4.42 TB/s by the final launches in five runs,
// 128 x 1 4.39) third by the short launches, which put the first six within 0.3 %; in all six it
// was among the first three (docs/results/nvidia-h200-x2/2026-11-29_8532a95).
constexpr std::size_t kOnePassFinalists = 3;
constexpr std::size_t kTriadOnePassFinalists = 3;
// One-pass configurations are first timed by one launch; those below this share of the fastest
// rate seen (the looping shape's final, or the grid's best so far) keep that launch's rate and
// get no more (try_one_pass).
constexpr std::uint32_t kScreeningTimedLaunches = 1;
constexpr double kFarBelowTheFastest = 0.8;
// Inside L2, the best configuration is also measured over these multiples of the planned
// footprint (a quarter of l2.size: an eighth and three eighths of it), see
// OpOutcome::other_footprints.
constexpr double kOtherL2FootprintFactors[] = {0.5, 1.5};
// The search's best and its next fastest configurations, measured again with the final
// launches (measure_finalists).
constexpr std::size_t kFinalists = 3;

class BandwidthMeasurement {
 public:
  BandwidthMeasurement(ProbeContext& ctx, const BandwidthTarget& target, FootprintPlan plan)
      : ctx_(ctx), target_(target), plan_(std::move(plan)) {}
  void run();

 private:
  std::string id() const { return target_.element + ".bandwidth"; }
  StreamMeter meter_for(StreamOp op, std::uint64_t footprint_bytes = 0) const;
  OpOutcome measure(StreamMeter& meter, const LaunchSpace& space, const LaunchConfig& start);
  void try_one_pass(StreamMeter& meter, const LaunchSpace& space, OpOutcome& outcome,
                    std::size_t finalists = kOnePassFinalists);
  Property measure_triad(const OpOutcome& copy, std::optional<OpOutcome>& measured);
  Property measure_triad3(const OpOutcome& triad);
  void measure_finalists(StreamMeter& meter, OpOutcome& outcome) const;
  void measure_footprints(StreamMeter& meter, OpOutcome& outcome,
                          const char* label = "_footprints");
  void sweep_other_shape(StreamMeter& meter, OpOutcome& outcome);
  Property finding(const std::string& name, const OpOutcome& outcome, const SmClockLog* clocks);

  ProbeContext& ctx_;
  const BandwidthTarget& target_;
  FootprintPlan plan_;
};

StreamMeter BandwidthMeasurement::meter_for(StreamOp op, std::uint64_t footprint_bytes) const {
  StreamSpec base;
  base.path = target_.path;
  base.op = op;
  base.placement = target_.placement;
  base.footprint_bytes = footprint_bytes > 0 ? footprint_bytes : plan_.bytes;
  return StreamMeter(ctx_, base, id() + "/" + std::string(to_string(op)) + "_search");
}

OpOutcome BandwidthMeasurement::measure(StreamMeter& meter, const LaunchSpace& space,
                                        const LaunchConfig& start) {
  const std::string op(to_string(meter.base().op));
  ctx_.progress(id() + ": " + op + " launch search over " +
                format_bytes(static_cast<double>(plan_.bytes)));
  OpOutcome outcome;
  outcome.search_at_one_clock = target_.per_sm;
  outcome.search =
      search_launch(space, start, meter.searcher(kSearchTimedLaunches, target_.per_sm));
  meter.relabel(id() + "/" + op + "_final");
  outcome.final = meter.measure_long(outcome.search.best, kFinalTimedLaunches, kFinalLaunchSeconds);
  meter.relabel(id() + "/" + op + "_finalists");
  measure_finalists(meter, outcome);
  if (target_.footprint == BandwidthFootprint::beyond_l2) {
    try_one_pass(meter, space, outcome);
    measure_footprints(meter, outcome);
    sweep_other_shape(meter, outcome);
  }
  if (target_.footprint == BandwidthFootprint::inside_l2) {
    meter.relabel(id() + "/" + op + "_footprints");
    const LaunchConfig best = config_of(outcome.final);
    for (const double factor : kOtherL2FootprintFactors) {
      const auto footprint = static_cast<std::uint64_t>(factor * static_cast<double>(plan_.bytes));
      outcome.other_footprints.push_back(
          meter.measure_long(best, kFinalTimedLaunches, kFinalLaunchSeconds, footprint));
    }
  }
  return outcome;
}

// Rates hardly depend on the launch near the peak (an H200's L2 writes: 4.58-4.69 TB/s over 12
// configurations), and the search's short launches order neighbours by noise: five processes
// at 2615002 ended on five configurations and wrote 4.73-4.83 TB/s to L2, while each one's
// final launches spread by 0.02-0.09 TB/s (docs/results/nvidia-h200/2026-11-25_2615002); an
// H100 at f7e7a36 read DRAM at 3.145 TB/s in four processes and 3.194 in one, whose search had
// ended at 4 x 512 threads, 8 B x 8, which the others had measured third (docs/results/
// nvidia-h100/2026-11-25_f7e7a36). In L1 the search ended at 2 x 256 threads, 8 B x 8 in one
// process of five at 7d0c541 (127.3 B per SM cycle) where 2 x 512 read 127.65 in the final
// launches, which only widened the spread as a runner-up. So the search's next fastest
// configurations are measured again with the final launches, the highest (finalist_rate) is
// the finding, every finalist's p50 stays in the evidence, and those within the search's
// minimum gain of the fastest are ties, pooled into the finding.
void BandwidthMeasurement::measure_finalists(StreamMeter& meter, OpOutcome& outcome) const {
  const bool per_cycle = target_.per_sm;
  const auto search_rate = [&](const LaunchConfig& config) {
    for (const LaunchStep& step : outcome.search.steps) {
      if (step.config == config && step.bytes_per_second) return *step.bytes_per_second;
    }
    return 0.0;
  };
  const auto row = [&](const StreamMeasurement& m) {
    nlohmann::json r = to_json(config_of(m));
    r["search_p50_bytes_per_second"] = search_rate(config_of(m));
    r["final_p50_bytes_per_second"] = m.median_bytes_per_second;
    if (per_cycle) r["final_p50_bytes_per_sm_cycle"] = finalist_rate(m, true);
    return r;
  };
  std::vector<StreamMeasurement> measured;
  measured.push_back(std::move(outcome.final));
  const std::vector<LaunchConfig> configs = finalists(outcome.search, kFinalists);
  for (std::size_t i = 1; i < configs.size(); ++i) {
    measured.push_back(meter.measure_long(configs[i], kFinalTimedLaunches, kFinalLaunchSeconds));
  }
  std::vector<double> rates;
  for (const StreamMeasurement& m : measured) {
    outcome.finalists.push_back(row(m));
    rates.push_back(finalist_rate(m, per_cycle));
  }
  const FinalistRanking ranking = rank_finalists(rates, outcome.search.min_gain);
  for (const std::size_t i : ranking.ties) outcome.ties.push_back(measured[i]);
  outcome.final = std::move(measured[ranking.fastest]);
}

// DRAM: the final configuration, in its launch shape, at footprints up to at least 8 GiB and 128
// L2s (dram_footprints.hpp), each launch beginning where the one before it ended: the finding is
// the rate the largest of them agree on, which no L2 can serve more than 1/128 of. Footprints
// that cannot run (too little memory) are skipped and named.
void BandwidthMeasurement::measure_footprints(StreamMeter& meter, OpOutcome& outcome,
                                              const char* label) {
  meter.relabel(id() + "/" + std::string(to_string(meter.base().op)) + label);
  meter.set_placement(outcome.final.spec.placement);
  DramFootprintSweep sweep;
  sweep.l2_bytes = std::max(plan_.level_size.value_or(0), plan_.api_level_size.value_or(0));
  sweep.planned_bytes = plan_.bytes;
  // Streams index bytes in 64 bits: the limit is the memory, not a chase's 32-bit indices; a
  // copy's two arrays must both fit.
  const std::uint64_t limit = ctx_.backend.limits().max_wide_footprint_bytes / 2;
  const std::vector<std::uint64_t> footprints =
      dram_sweep_footprints(plan_.bytes, sweep.l2_bytes, limit);
  if (!footprints.empty() && footprints.front() < kDramSweepLeastBytes) {
    sweep.capped = "half the device memory a stream may use (" +
                   format_bytes(static_cast<double>(limit)) + " per array)";
  }
  for (const std::uint64_t footprint : footprints) {
    try {
      sweep.points.push_back(meter.measure_long(config_of(outcome.final), kDramSweepLaunches,
                                                kFinalLaunchSeconds, footprint));
    } catch (const ExperimentError& error) {
      sweep.not_run.push_back(format_bytes(static_cast<double>(footprint)) + ": " + error.what());
    }
  }
  std::vector<const StreamMeasurement*> launches{&outcome.final};
  for (const StreamMeasurement& point : sweep.points) launches.push_back(&point);
  sweep.launch_stdev = pooled_launch_stdev(launches);
  sweep.agreeing = agreeing_largest(sweep.points, outcome.search.min_gain, sweep.launch_stdev);
  outcome.footprint_sweep = std::move(sweep);
  meter.set_placement(target_.placement);
}

// DRAM: where the shape that lost at the search's footprint read faster there than the winner
// did at its largest footprints (beyond what the launches' scatter explains), that shape is
// swept at the same footprints too, and the faster one there is the finding
// (shape_at_footprints.hpp: on two H200s the looping shape won at 960 MiB and lost 2.5 % at 8
// and 4 GiB, 1-1.6 % below the one-pass figure in the same run). About 70 ms on an H200 when it
// runs, nothing when it does not.
void BandwidthMeasurement::sweep_other_shape(StreamMeter& meter, OpOutcome& outcome) {
  if (!other_shape_may_be_faster(outcome)) return;
  ctx_.progress(id() + ": the other launch shape at the largest footprints too");
  OpOutcome other = other_shape_outcome(outcome);
  measure_footprints(meter, other, "_other_shape_footprints");
  keep_faster_shape(outcome, std::move(other));
}

// DRAM: the best configuration also as a one-pass grid (StreamPlacement::one_pass), which
// keeps the warps' stores and loads close together in the array, at every unroll and every
// block size of the space (a one-pass warp moves one tile: on the H200 stores gain from small
// tiles as gpu-stream's one element per thread). Every block size, not only the search's best:
// the looping search ends at 256 or 512 threads by noise (two of them within its 0.3 % gain),
// and one-pass copies at 256 threads ran 1.5 % faster than at 512 on an H200, so runs that had
// ended at 512 reported 4.19 TB/s and runs at 256 4.25 (docs/results/nvidia-h200/
// 2026-11-24_bdcb60a). The three best by the short launches are measured again with the final
// launches, so that one short series cannot pick alone (a run at 34953d8 wrote 3.51 TB/s
// one-pass where full runs had 4.68; on an H100 at f7e7a36 short launches put 1024 threads x
// unroll 1, 2.86 TB/s by its final launches, among the two best, and one process of five wrote
// 3.29 where the others had 3.306); the higher p50 of all final series is the finding, and the
// other shape's figure stays in the evidence. The base (the vector width) is the looping
// finalists' winner.
void BandwidthMeasurement::try_one_pass(StreamMeter& meter, const LaunchSpace& space,
                                        OpOutcome& outcome, std::size_t finalists) {
  meter.relabel(id() + "/" + std::string(to_string(meter.base().op)) + "_one_pass");
  meter.set_placement(StreamPlacement::one_pass);
  std::vector<std::pair<double, LaunchConfig>> by_rate;
  std::string not_run;
  // A launch is sized for the fastest rate seen, so the grid's slowest configurations (64
  // threads at unroll 1: a tenth of it on an H200) ran each of their 4 launches ten times as
  // long: ~0.2 s of the read's grid. Below 80 % of the fastest (launches of one configuration
  // agree within about 1 %) none can be among the finalists, whose order the short launches
  // set: after the warm-up, one timed launch tells them, and the others get two more timed
  // launches without another warm-up (4 launches, as before).
  double fastest =
      outcome.final.bytes_per_second.empty() ? 0 : outcome.final.median_bytes_per_second;
  for (const std::uint32_t threads : space.threads_per_block) {
    for (const std::uint32_t unroll : space.unroll) {
      LaunchConfig config = config_of(outcome.final);
      config.threads_per_block = threads;
      config.unroll = unroll;
      nlohmann::json row = {{"threads_per_block", threads}, {"unroll", unroll}};
      try {
        StreamMeasurement m = meter.measure(config, kScreeningTimedLaunches);
        if (m.median_bytes_per_second >= kFarBelowTheFastest * fastest) {
          m = meter.extend(std::move(m), kSearchTimedLaunches - kScreeningTimedLaunches);
        }
        fastest = std::max(fastest, m.median_bytes_per_second);
        by_rate.emplace_back(m.median_bytes_per_second, config);
        row["search_p50_bytes_per_second"] = m.median_bytes_per_second;
        row["search_timed_launches"] = m.bytes_per_second.size();
      } catch (const ExperimentError& error) {
        not_run = error.what();
        row["not_run"] = not_run;
      }
      outcome.one_pass_configs.push_back(row);
    }
  }
  // The looping shape may not have run (measure_triad): then the one-pass grid is the finding.
  const bool looping_ran = !outcome.final.bytes_per_second.empty();
  if (by_rate.empty()) {
    outcome.other_shape_not_run = not_run;
    meter.set_placement(target_.placement);
    return;
  }
  std::ranges::sort(by_rate, std::greater<>{}, &std::pair<double, LaunchConfig>::first);
  std::optional<StreamMeasurement> one_pass;
  for (std::size_t i = 0; i < std::min(finalists, by_rate.size()); ++i) {
    const LaunchConfig& config = by_rate[i].second;
    StreamMeasurement m = meter.measure_long(config, kFinalTimedLaunches, kFinalLaunchSeconds);
    for (nlohmann::json& row : outcome.one_pass_configs) {
      if (row["unroll"] == config.unroll && row["threads_per_block"] == config.threads_per_block)
        row["final_p50_bytes_per_second"] = m.median_bytes_per_second;
    }
    if (!one_pass || m.median_bytes_per_second > one_pass->median_bytes_per_second) {
      one_pass = std::move(m);
    }
  }
  const bool better =
      !looping_ran || one_pass->median_bytes_per_second > outcome.final.median_bytes_per_second;
  if (looping_ran) outcome.other_shape = std::move(better ? outcome.final : *one_pass);
  if (better) {
    outcome.final = std::move(*one_pass);
    outcome.ties.clear();  // they tied with the looping shape, which lost
  }
  meter.set_placement(target_.placement);
}

// The finding `name` of `outcome`; DRAM's against the API's peak. What disagrees (a rate above
// the peak, the largest footprints apart) is also a warning with both numbers.
Property BandwidthMeasurement::finding(const std::string& name, const OpOutcome& outcome,
                                       const SmClockLog* clocks) {
  const std::optional<double> peak =
      target_.api_peak ? api_peak_bandwidth(ctx_.backend.facts()) : std::nullopt;
  Property p = rate_property(name, outcome, plan_, clocks, peak);
  if (target_.footprint == BandwidthFootprint::inside_l2) {
    judge_l2_residency(p, any_finding(ctx_.topology, "dram", name), outcome.search.min_gain);
  }
  const std::string id = target_.element + "." + name;
  if (const std::string above = above_peak_warning(id, p); !above.empty()) {
    ctx_.topology.warnings.push_back(above);
  }
  if (outcome.footprint_sweep) {
    if (const std::string apart = footprint_disagreement(*outcome.footprint_sweep);
        !apart.empty()) {
      ctx_.topology.warnings.push_back(id + ": the largest footprints' rates " + apart);
    }
  }
  return p;
}

// DRAM's triad (a = b + s x c: two reads to one write, all three arrays' bytes counted, as
// STREAM counts them). An H200 copied at most 4.27 TB/s in every launch shape tried, where
// gpu-stream's triad (a 3:1 mix: measure_triad3) reached 4.48 and a triad of memtopo's
// 4.40-4.41 (reads alone 4.67, writes 4.71): the mix, not a missed launch shape, is what the
// copy lacks. Cheap, with no search of its own (about 0.2 s on an H200): the looping copy's
// final configuration with the final launches, then the one-pass grid at every threads x
// unroll with short launches (try_one_pass), its 3 best with the final launches; the higher p50
// is the finding. No footprint sweep: its three arrays of the planned footprint (16 L2s each)
// are 48 L2s a pass, of which an L2 that kept lines against the stream could answer at most
// 1/48 (the copy's sweep bounds that effect for this level). Inconclusive, with the reason,
// where no triad could run.
Property BandwidthMeasurement::measure_triad(const OpOutcome& copy,
                                             std::optional<OpOutcome>& measured) {
  const std::uint64_t footprint =
      std::min(plan_.bytes,
               ctx_.backend.limits().max_wide_footprint_bytes / stream_arrays(StreamOp::triad));
  StreamMeter meter = meter_for(StreamOp::triad, footprint);
  meter.relabel(id() + "/triad_looping");
  const bool copy_one_pass = copy.final.spec.placement == StreamPlacement::one_pass;
  const StreamMeasurement& looping =
      copy_one_pass && copy.other_shape ? *copy.other_shape : copy.final;
  const LaunchConfig config = config_of(looping);
  ctx_.progress(id() + ": triad over 3 arrays of " + format_bytes(static_cast<double>(footprint)));
  OpOutcome outcome;
  outcome.final.spec = meter.base();  // the base of the one-pass grid, should the loop not run
  outcome.final.spec.vector_bytes = config.vector_bytes;
  outcome.final.spec.blocks_per_sm = config.blocks_per_sm;
  outcome.search = {config, 0, {{config, std::nullopt, ""}}, false, SearchOptions{}.min_gain};
  try {
    meter.set_placement(looping.spec.placement);
    outcome.final = meter.measure_long(config, kFinalTimedLaunches, kFinalLaunchSeconds);
    outcome.search.best_bytes_per_second = outcome.final.median_bytes_per_second;
    outcome.search.steps.front().bytes_per_second = outcome.search.best_bytes_per_second;
  } catch (const ExperimentError& error) {
    outcome.search.steps.front().not_run = error.what();  // a triad takes more registers
  }
  meter.set_placement(target_.placement);
  try_one_pass(meter, store_launch_space(), outcome, kTriadOnePassFinalists);
  if (outcome.final.bytes_per_second.empty()) {
    return inconclusive_property("triad_bandwidth", "bytes/second",
                                 "triad stream (2 x ld.global.cg + st.global: a = b + s x c)",
                                 "no triad could run: " + outcome.search.steps.front().not_run +
                                     "; one pass: " + outcome.other_shape_not_run);
  }
  Property p = finding("triad_bandwidth", outcome, nullptr);
  measured = std::move(outcome);
  return p;
}

// DRAM's 3:1 mix, gpu-stream's triad kernel (a = b x d + c, all four arrays' bytes): on an H200
// gpu-stream's "triad" moved 4.48 TB/s against memtopo's 2:1 triad's 4.44, a mix of its own (a
// standalone 3:1 kernel 4.48-4.49, the 2:1 4.40). Planned from the 2:1 triad: its finding's
// launch shape and its other placement's, each with the final launches (about 0.08 s on an
// H200), the higher p50 the finding; no search or footprint sweep of its own (four arrays of
// the footprint: 64 L2s a pass).
Property BandwidthMeasurement::measure_triad3(const OpOutcome& triad) {
  const std::uint64_t footprint =
      std::min(plan_.bytes,
               ctx_.backend.limits().max_wide_footprint_bytes / stream_arrays(StreamOp::triad3));
  StreamMeter meter = meter_for(StreamOp::triad3, footprint);
  meter.relabel(id() + "/triad3");
  ctx_.progress(id() + ": triad 3:1 over 4 arrays of " +
                format_bytes(static_cast<double>(footprint)));
  std::vector<const StreamMeasurement*> shapes{&triad.final};
  if (triad.other_shape) shapes.push_back(&*triad.other_shape);
  OpOutcome outcome;
  std::string not_run;
  for (const StreamMeasurement* shape : shapes) {
    meter.set_placement(shape->spec.placement);
    try {
      StreamMeasurement m =
          meter.measure_long(config_of(*shape), kFinalTimedLaunches, kFinalLaunchSeconds);
      outcome.search.steps.push_back({config_of(*shape), m.median_bytes_per_second, ""});
      if (outcome.final.bytes_per_second.empty() ||
          m.median_bytes_per_second > outcome.final.median_bytes_per_second) {
        if (!outcome.final.bytes_per_second.empty()) outcome.other_shape = std::move(outcome.final);
        outcome.final = std::move(m);
      } else {
        outcome.other_shape = std::move(m);
      }
    } catch (const ExperimentError& error) {
      not_run = error.what();
      outcome.search.steps.push_back({config_of(*shape), std::nullopt, not_run});
    }
  }
  meter.set_placement(target_.placement);
  if (outcome.final.bytes_per_second.empty()) {
    return inconclusive_property("triad3_bandwidth", "bytes/second",
                                 "triad3 stream (3 x ld.global.cg + st.global: a = b x d + c)",
                                 "no triad3 could run at the triad's launch shapes: " + not_run);
  }
  outcome.search.best = config_of(outcome.final);
  outcome.search.best_bytes_per_second = outcome.final.median_bytes_per_second;
  outcome.search.min_gain = SearchOptions{}.min_gain;
  return finding("triad3_bandwidth", outcome, nullptr);
}

void BandwidthMeasurement::run() {
  Element& element = element_for(ctx_.topology, target_.element);
  const LaunchSpace reads = read_launch_space();
  StreamMeter read_meter = meter_for(StreamOp::read);
  const OpOutcome read = measure(read_meter, reads, default_start(reads));
  // The SM-local levels' rates follow the SM clock (bandwidth_per_sm_clock is their constant).
  const SmClockLog* clocks = target_.per_sm ? ctx_.sm_clocks.get() : nullptr;
  Property bandwidth = finding("bandwidth", read, clocks);

  if (target_.sweep != BandwidthSweep::none) {
    read_meter.relabel(id() + "/sweep");
    bandwidth.evidence["sweep"] =
        sweep_bandwidth(ctx_, target_, read_meter, read.search.best, plan_);
  }
  if (target_.per_sm) element.set(per_sm_clock_property(bandwidth, read));
  if (target_.api_peak) add_api_peak(element, bandwidth, ctx_.backend.facts());
  if (target_.writes) {
    // Stores are 16-byte vectors; the read's best blocks, threads and unroll are the start.
    const LaunchSpace stores = store_launch_space();
    LaunchConfig start = read.search.best;
    start.vector_bytes = stores.vector_bytes.back();
    StreamMeter write_meter = meter_for(StreamOp::write);
    element.set(finding("write_bandwidth", measure(write_meter, stores, start), clocks));
    StreamMeter copy_meter = meter_for(StreamOp::copy);
    const OpOutcome copy = measure(copy_meter, stores, start);
    element.set(finding("copy_bandwidth", copy, clocks));
    if (target_.footprint == BandwidthFootprint::beyond_l2) {
      std::optional<OpOutcome> triad;
      element.set(measure_triad(copy, triad));
      if (triad) element.set(measure_triad3(*triad));
    }
  }
  element.set(std::move(bandwidth));
}

}  // namespace

void BandwidthProbe::run(ProbeContext& ctx) {
  FootprintPlan plan = plan_footprint(ctx, target_);
  try {
    BandwidthMeasurement(ctx, target_, std::move(plan)).run();
  } catch (const StreamsUnsupported& unsupported) {
    throw ProbeSkipped(unsupported.what());
  }
}

std::vector<std::unique_ptr<Probe>> bandwidth_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  for (const BandwidthTarget& target : bandwidth_targets()) {
    probes.push_back(std::make_unique<BandwidthProbe>(target));
  }
  return probes;
}

}  // namespace memtopo
