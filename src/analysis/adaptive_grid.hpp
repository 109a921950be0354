#pragma once
// An adaptive footprint grid for a staircase whose plateaus are long and whose steps are few
// (the TLB ladders; docs/method.md "TLB levels", *The adaptive grid*). A coarse pass measures
// every `spacing`-th footprint of the fine grid; then, while some gap between two measured
// footprints still holds fine-grid points and rises beyond what the noise can explain, holds a
// step, runs through a ramp, or is the widest of a thin plateau, its middle fine point is measured
// and the staircase cut again. Where it ends, every step, ramp and rise that could be a level
// lies between neighbouring footprints of the fine grid, as on the fine grid measured whole; only
// plateaus are left coarser, and they are judged by the noise the whole grid would show.
//
// Why a rise beyond the noise is enough: a step the staircase takes for a level has confidence
// c >= c_min, and confidence <= contrast x sharpness = min(1, J / (k sigma)) x r / J for a jump J
// of which r is made in one fine interval (k = StaircaseOptions::clear_jump_sigmas), so r >=
// c_min x k x sigma whatever J. A coarse gap holding that interval rises by r plus the change over
// the rest of the gap, which on a plateau is the difference of two noisy points (sigma x sqrt 2):
// a miss count never falls as a chain of an LRU level grows, nor do L2 hits get faster. So the gap
// rises by at least c_min x k x sigma - z sqrt(2) sigma unless the noise took more than z sigmas
// of such a difference off it (z = kNoiseAllowanceSigmas). On the TLB row, c_min = 0.5 and k = 10:
// a gap is refined when it rises by more than 0.76 sigma.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "analysis/staircase.hpp"

namespace memtopo {

// How many noise sigmas of a difference between two points of one plateau the refinement rule
// allows a level's rise to lose over the rest of its gap (about 1 gap in 700 for Gaussian noise).
inline constexpr double kNoiseAllowanceSigmas = 3.0;
// A plateau before a step keeps at least this many footprints (all it has on the fine grid, when
// fewer): its level, the median of their means, is what the step's miss penalty is measured from,
// and the footprints of short chains scatter most (each chain's few elements carry their own
// reference errors). On a simulated device (tests/sims/l1-24k.json, 12 noise seeds) the L1 TLB's
// penalty, read off a plateau of 2..16 elements, erred by 0.32 cycles (sd) on the whole grid,
// 0.31 with 6 footprints or more, 0.56 with the 4-5 of the coarse pass and its rises.
inline constexpr std::size_t kMinPlateauPoints = 6;

// Every `spacing`-th point of `grid` (ascending), from its first, and its last.
std::vector<std::uint64_t> coarse_points(std::span<const std::uint64_t> grid, std::size_t spacing);

// The least rise (in the series' unit) of a gap that may hold a step of confidence
// `min_step_confidence` or more (see above), for a series of noise `noise_sigma`; never below 0.
double least_rise_to_refine(double noise_sigma, double min_step_confidence,
                            const StaircaseOptions& options = {});

// Why a gap is refined.
enum class GapReason {
  rises,         // by more than the least rise: a level may step inside
  holds_a_step,  // one of the staircase's steps: its sharpness and KS test need the fine points
  in_a_ramp,     // PELT cut a segment there that the staircase merged away as a ramp: whether
                 // it is one (or a plateau whose end already rises) depends on its points
  thin_plateau,  // the widest gap of a level with fewer than kMinPlateauPoints footprints
};

// "rises", "holds a step", "in a ramp", "thin plateau": for evidence.
const char* gap_reason_name(GapReason reason);

struct GapToRefine {
  std::uint64_t from = 0, to = 0;  // the measured footprints either side
  std::uint64_t middle = 0;        // the fine point measured next
  GapReason reason = GapReason::rises;
};

// The gaps of `s` (a staircase over footprints of `grid`, and maybe others between them) still
// to refine: two consecutive footprints with fine points of `grid` strictly between them, where
// the series rises by more than `least_rise`, one of s's steps lies, or one of its ramps runs
// (from the footprint before it to the one after it), and the widest gap of every level before a
// step with fewer footprints than kMinPlateauPoints (and than the fine grid gives it); each with
// its middle fine point (the lower middle of an even count).
std::vector<GapToRefine> gaps_to_refine(const Staircase& s, std::span<const std::uint64_t> grid,
                                        double least_rise);

// The noise of `series` (over `footprints`, ascending) as the fine grid measured whole would show
// it: the robust sigma of its first differences (robust_noise_sigma), each difference across a gap
// that spans g intervals of `grid` counted g times. A gap left coarse stands for its g fine
// intervals, each the difference of two points of one plateau, distributed as its own difference
// is. Counted once, the few differences of sparse plateaus let a small step pass for noise more
// often, and weigh more when it does (it doubled the noise of some ladders): on 200 random ladders
// (tests/probes/tlb/tlb_adaptive_grid_test) the adaptive grid then found 4 levels fewer than the
// whole grid and 1 more, one lost level sure on the whole grid; counted so, 2 fewer and 3 more,
// all near the threshold of a level, where either grid goes either way from run to run.
double grid_noise_sigma(std::span<const double> series, std::span<const std::uint64_t> footprints,
                        std::span<const std::uint64_t> grid);

// The staircase of footprints of `grid` measured adaptively (and of footprints off it, each one
// interval), judged by the noise the whole grid would show: `estimated` (analyze_staircase of
// those footprints and `cycles`, by their own noise) cut again with the noise grid_noise_sigma
// gives (ChangePointOptions::known_sigma), or as it is where that is the same noise.
Staircase analyze_on_grid(const Staircase& estimated, std::span<const std::vector<double>> cycles,
                          std::span<const std::uint64_t> grid);

// Measures footprints `more` (grid points not measured yet) and returns the staircase over the
// footprints of `s` and them (Sweep::coarse_with, cut again by analyze_on_grid).
using MeasureMore =
    std::function<Staircase(const Staircase& s, std::span<const std::uint64_t> more)>;

// A gap refined, with the least rise its staircase was judged by then.
struct RefinedGap {
  GapToRefine gap;
  double least_rise = 0;
};

// Refines `s` (a staircase over points of `grid`, e.g. over coarse_points) until gaps_to_refine
// finds no gap, each round measuring the middle points of every gap it found and cutting the
// staircase again, by least_rise_to_refine(noise of the staircase then, min_step_confidence).
// Every gap refined is appended to `refined`.
Staircase refine_where_it_may_step(Staircase s, std::span<const std::uint64_t> grid,
                                   double min_step_confidence, const MeasureMore& measure_more,
                                   std::vector<RefinedGap>& refined);

}  // namespace memtopo
