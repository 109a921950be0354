#pragma once
// The sweep every staircase row runs: chains over a grid of footprints on the row's load path,
// cut into levels and steps (analysis/staircase), and every step refined by a section search
// between the two footprints that bracket it.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/size_rule.hpp"
#include "analysis/staircase.hpp"
#include "backend/experiment.hpp"
#include "probes/core/chase_builder.hpp"
#include "probes/core/probe.hpp"
#include "probes/core/staircase_probe.hpp"

namespace memtopo::staircase {

// Timed loads per chase: kTimedPasses passes over the chain (so that a missing element is slow
// twice and an outlier never makes one), at least this many samples, at most that many.
inline constexpr std::uint32_t kMinTimedLoads = 1024;
inline constexpr std::uint32_t kMaxTimedLoads = 16384;
// 32-bit word indices: a chase's array holds at most 2^32 words.
inline constexpr std::uint64_t kMaxIndexedBytes = std::uint64_t{4} * UINT32_MAX;

// How a footprint becomes a chain.
struct Layout {
  enum Kind {
    sequential,    // every stride, in address order: pages in turn, every pass the same order
    one_per_page,  // one element per stride (>= a page) at a seeded offset, random order
  } kind = sequential;
  std::uint32_t stride_bytes = 0;
  std::optional<std::uint32_t> sm;  // pin every chase to this SM (near/far L2 depend on it)
  std::uint64_t first_element = 0;  // one_per_page: elements below this are not on the chain
  // one_per_page only: a wide chain (64-bit elements, footprints past 16 GiB; the TLB row),
  // whose arrays the backend keeps between chases (ChaseSpec::keep_arrays). Its traces' words
  // are then reported as element numbers (word x 4 / stride): what Measured::indices hold.
  bool wide = false;
  // Sequential only: footprints of at least this many bytes (0: none) are chased without a warm
  // pass. Far past every cache a warm pass leaves only the chain's last stretch cached and the
  // timed loads (its first elements) miss either way, while it costs the whole chain's loads.
  std::uint64_t cold_from_bytes = 0;
  // Sequential only: the backend may warm the chain without following it (ChaseSpec::
  // stream_warm): the L2 row, whose warm passes were 46 of every 50 ms on an H200.
  bool stream_warm = false;
};

// Per-word reference latencies (word -> cycles), subtracted from every access of that word with
// their median added back: removes what is fixed per address (a line in a near or a far L2
// partition) and leaves what changes with the footprint (TLB misses). The thesis' reduction
// against a reference vector (004, 3.3.2), applied per access.
using WordReference = std::map<std::uint32_t, double>;

// What one chase gave: corrected cycles and the word each timed load read.
struct Measured {
  std::vector<double> cycles;
  std::vector<std::uint32_t> indices;
  std::uint64_t chain_address = 0;  // Trace::chain_address
};

// Per-word medians of the timed loads of some chases: a reference (see WordReference).
WordReference per_word_medians(std::span<const Measured> chases);

// One refined step: the largest footprint of the level before and the evidence around it.
struct RefinedStep {
  StaircaseStep step;
  double threshold_cycles = 0;
  double miss_floor_cycles = 0;        // below almost every new answer after the step
  std::uint64_t edge_bytes = 0;        // largest footprint that fits (the level before holds it)
  std::uint64_t first_miss_bytes = 0;  // smallest footprint that misses
  std::vector<ScanPoint> verdicts;     // every footprint judged, coarse and section
  double edge_confidence = 0;          // size_rule's edge_confidence over the verdicts
};

// The coarse grid: start, start * ratio, ... up to end (always included), on the stride.
std::vector<std::uint64_t> footprint_grid(std::uint64_t start, std::uint64_t end, double ratio,
                                          std::uint64_t stride);

// A level's slowest typical answer: the median over its footprints (indices into `coarse`) of
// each one's p95. Not the pooled p95: a footprint at the level's end that already misses in part
// (on an H200 the L2 TLB ladder's 64 GiB point, at its 64 GiB reach) lifted that into the misses
// in one run of five, and the threshold above it judged half of the misses hits.
double typical_slowest(std::span<const Measured> coarse, const StaircaseLevel& level);

// A sweep on one row: plans chases, runs them, keeps the coarse traces and the cost.
class Sweep {
 public:
  Sweep(ProbeContext& ctx, const StaircaseRow& row, Layout layout);

  // The reference every later access is corrected by (see WordReference).
  void set_reference(WordReference reference);
  // One-per-page wide layouts: each element's own latency where every TLB level holds its page
  // and the L2 holds its line, for the elements [from, to): a chase visits every element once
  // and then, right after, the other 64-bit words of its 32-byte sector (same page, same line:
  // hits in every level whatever the chain's length), `chases` times; an element's reference
  // is the median of those revisits. What it leaves between elements is their own L2 answer
  // (near or far partition), not a TLB state, so no chain length is the reference's artefact.
  WordReference hit_reference(std::uint64_t from, std::uint64_t to, std::size_t chases);
  // What measure() adds to every access of `word` (0 where the reference has none): subtracting
  // it gives the access's own latency back.
  double correction(std::uint32_t word) const;

  // The chase over `footprint` in this layout, as a builder: callers may change what differs.
  ChaseBuilder chase(std::uint64_t footprint) const;
  // One chase per footprint, as many per batch as the row allows; `phase` names the timing.
  std::vector<Measured> measure(std::span<const std::uint64_t> footprints,
                                const std::string& phase);
  // Measures the grid and cuts it into levels and steps; keeps the traces for refine.
  Staircase coarse(std::span<const std::uint64_t> footprints);
  // The staircase of `s` (which coarse() returned) with `more` footprints measured and merged in
  // footprint order; the others are not chased again. Replaces the kept traces.
  Staircase coarse_with(const Staircase& s, std::span<const std::uint64_t> more);
  // Step k of `s` (which coarse() returned), refined by a section search.
  RefinedStep refine(const Staircase& s, std::size_t k);
  // Step k refined again on other memory: sequential chains that start `offset_bytes` into the
  // array (other physical pages, which a hashed cache maps to other sets). `first` (refine's
  // answer) gives the threshold and the bracket measured first there; where an end of it
  // disagrees, a gallop away from that end finds this placement's bracket. An edge outside the
  // levels around the step comes back as edge_bytes 0. Sequential layouts only.
  RefinedStep refine_placed(const Staircase& s, std::size_t k, const RefinedStep& first,
                            std::uint64_t offset_bytes);

  // One-per-page chains from now on leave out the elements below `first` (Layout::first_element):
  // a chain of n elements over a footprint of (first + n) strides, on other pages of the array.
  void start_at_element(std::uint64_t first) { layout_.first_element = first; }

  std::uint32_t stride() const { return layout_.stride_bytes; }
  const Layout& layout() const { return layout_; }
  const std::vector<Measured>& coarse() const { return coarse_; }
  // Every access of a level's footprints, pooled.
  std::vector<double> pooled(const StaircaseLevel& level) const;

  nlohmann::json cost() const;

 private:
  std::uint64_t element_word(std::uint64_t element) const;
  std::vector<std::uint32_t> one_per_page_indices(std::uint64_t elements) const;
  std::vector<std::uint64_t> one_per_page_wide_indices(std::uint64_t elements) const;
  std::uint32_t chases_per_batch() const;
  // Section search between a fitting and a missing footprint (both judged in `verdicts`),
  // down to what the verdicts resolve or `resolution_bytes`, whichever is coarser: the edge,
  // the first miss and every verdict.
  RefinedStep search_edge(std::uint64_t fit, std::uint64_t miss,
                          std::map<std::uint64_t, FitVerdict>& verdicts, const FitRule& rule,
                          std::uint64_t resolution_bytes = 0);

  ProbeContext& ctx_;
  const StaircaseRow& row_;
  Layout layout_;
  BackendLimits limits_;
  std::vector<Measured> coarse_;
  std::uint64_t offset_bytes_ = 0;  // where sequential chains start in their array (refine_placed)
  // The reference, sorted by word: a flat table (its lookups, one per timed load of a TLB row,
  // were a map's tree walks).
  std::vector<std::pair<std::uint32_t, double>> reference_;
  double reference_median_ = 0;
  std::vector<double> dense_correction_;  // by word, where the reference's words are dense
  std::map<std::string, double> seconds_;
  std::uint64_t loads_ = 0;
  std::uint32_t batches_ = 0;
};

}  // namespace memtopo::staircase
