#pragma once
// Line size and fetch granularity (sector size) of a cache, from pointer-chase results.
//
// Fetch granularity (thesis 004, 4.3; paper 000, 3.2 step 2): a sequential chase at 4-byte
// stride over a footprint well beyond the cache misses once per fetched block and hits on the
// rest of it, so the distance in bytes between consecutive slow accesses is the block the cache
// fetches on a miss: the sector of a sectored cache, the line of an unsectored one. The estimate
// is the mode of those gaps; rare outliers (an interrupt making one hit slow) split one gap into
// two and do not move the mode.
//
// Line (allocation and tag unit): how many chain elements the cache holds depends on the stride.
// Below the line several elements share a line, every line of the footprint is touched and the
// cache fills at a footprint equal to its size S. At or beyond the line every element takes a
// line of its own and the cache holds at most S / line elements. Strides are p x u for a fixed
// odd prime p and units u = sector x 2^k:
//   u < line:  the footprint held is at most S / line x p u <= p S / 2 (or S when p u < line);
//   u = line:  element i sits in line p i; with p prime to the set count the elements walk every
//              set in turn, so exactly S / line elements fit: the footprint held is p S;
//   u > line:  the footprint held is still at least p S (a stride of p 2^m lines reaches
//              sets / gcd(2^m, sets) sets, each element costs p 2^m lines of footprint).
// So the line is the smallest unit whose stride holds (about) p times the size, and size /
// (capacity in elements at that stride) gives it again, exactly. A prime that divides the set
// count makes every stride look like one below the line: that is reported, not guessed around.
// Strides that are not whole multiples of the line would fill the sets unevenly (the first set
// overflows before the others are full); whole multiples do not.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/confidence.hpp"

namespace memtopo {

// ---- fetch granularity --------------------------------------------------------------------

struct GapEstimate {
  // The mode of the gaps between consecutive slow accesses, in bytes; unset when inconclusive.
  std::optional<std::uint64_t> granularity_bytes;
  std::uint64_t mode_gap_bytes = 0;  // the mode even when inconclusive (0: no gaps)
  double median_gap_bytes = 0;
  double consistency = 0;  // fraction of the gaps equal to the mode (gap_confidence)
  std::size_t accesses = 0;
  std::size_t slow_accesses = 0;
  std::size_t gaps = 0;                            // gaps used (forward steps in addresses)
  std::map<std::uint64_t, std::size_t> histogram;  // gap bytes -> count
  std::string note;                                // why inconclusive
};

struct GapRule {
  std::size_t min_gaps = 16;       // fewer gaps than this are too few to tell
  double min_consistency = 0.5;    // the mode must describe at least this share of the gaps
  double max_slow_fraction = 0.9;  // more slow accesses than this: everything misses
};

// `cycles[i]` is the (overhead-corrected) time of the access that loaded word `indices[i]` of a
// sequential chase; an access is slow when cycles exceed `threshold_cycles`. Gaps are taken
// between consecutive slow accesses whose addresses increase (a wrap of the chain is skipped).
// Throws std::invalid_argument when the spans differ in length.
GapEstimate estimate_fetch_granularity(std::span<const double> cycles,
                                       std::span<const std::uint32_t> indices,
                                       double threshold_cycles, const GapRule& rule = {});

// How sure a granularity read off the gaps is: share (the fraction of the gaps equal to the
// mode). Only for an estimate with a granularity.
Confidence gap_confidence(const GapEstimate& gaps);

// ---- line from the capacity per stride ----------------------------------------------------

// The strides p x u for units u = sector, 2 sector, 4 sector ... up to `max_unit_bytes`; empty
// when the sector is 0 or `prime` is not an odd prime.
std::vector<std::uint64_t> line_stride_ladder(std::uint64_t sector_bytes, std::uint64_t prime,
                                              std::uint64_t max_unit_bytes);

struct StrideCapacity {
  std::uint64_t stride_bytes = 0;
  // The classifying footprint (a little above the size) and whether it fitted there.
  std::uint64_t probe_footprint_bytes = 0;
  bool fits_at_probe = false;
  // Largest fitting footprint found by the size search at this stride, when it was searched and
  // found an edge.
  std::optional<std::uint64_t> capacity_footprint_bytes;
};

enum class StrideClass {
  below_line,   // capacity footprint below p x size: the unit is below the line
  beyond_line,  // capacity footprint about p x size or more: the unit is at least the line
  aliased,      // behaves as below but lies above the line found (set-index aliasing)
  unsearched,   // fitted at the probe footprint, capacity not searched
};
const char* to_string(StrideClass c);

struct StrideVerdict {
  std::uint64_t stride_bytes = 0;
  StrideClass cls = StrideClass::below_line;
  std::optional<std::uint64_t> capacity_elements;  // capacity footprint / stride
  std::optional<double> line_estimate_bytes;       // size / capacity_elements
};

struct LineInference {
  std::optional<std::uint64_t> line_bytes;   // power of two nearest the raw ratio
  double raw_ratio = 0;                      // size / capacity in elements at s*
  std::uint64_t first_beyond_stride = 0;     // s*: 0 when none
  std::optional<std::uint64_t> lower_bound;  // when inconclusive: the line is at least this
  Confidence confidence;                     // with line_bytes only (see infer_line)
  bool sectored = false;                     // line > sector
  std::vector<StrideVerdict> strides;
  std::string note;  // why inconclusive, or remarks (aliasing, a single stride)
};

// `size_bytes`: the measured cache size; `sector_bytes`: the measured fetch granularity (0 when
// unknown); `prime`: the p of the strides. A stride is beyond the line when its searched capacity
// footprint is at least p x size x (1 - beyond_margin). The line is the power of two nearest
// size / capacity in elements at the smallest such stride s*; inconclusive (no line_bytes) when
// that ratio lies more than 0.1 octave from a power of two. Confidence (analysis/confidence):
//   octave_closeness of that raw ratio to the power of two;
//   agreement of the strides with the line: a stride p x u agrees when it behaved as its unit
//     predicts, below the line (u < line) if its capacity stayed below p x size, at or beyond it
//     if it held p x size or fitted at its probe footprint (searched or not). A larger stride that
//     held less (named `aliased`), a stride p x line that did not hold p x size, or a smaller one
//     that fitted at its probe footprint are checks that disagree;
//   methods_agreeing 1 of 2 when the line comes out smaller than the measured sector (the
//     sector and the line disagree).
LineInference infer_line(std::uint64_t size_bytes, std::uint64_t sector_bytes, std::uint64_t prime,
                         std::span<const StrideCapacity> strides, double beyond_margin = 0.25);

// ---- line from power-of-two strides (a second evidence path) ----------------------------
//
// The prime strides assume a modulo set index; a hashed index (Hopper's L1) fills the sets
// unevenly at them and the ratio lands between powers of two. Power-of-two strides u from the
// sector up need a different assumption: that the index spreads every other line (or every
// 2^m-th) as evenly as it spreads all lines, as a hash of many address bits or a bit selection
// that skips the bit just above the line offset does. Then:
//   u <= line: every line of the footprint is touched, the cache fills at the size S (capacity
//              in elements S / u), as when the size was measured;
//   u = 2 line: every other line: the cache holds S / line elements, 2 S of footprint.
// A stride is classified at `beyond_factor` x S (1.5: between the two); the smallest that holds
// it is 2 x line, and S / (capacity in elements there) gives the line. A modulo index over 2^n
// sets (or any even count) reaches only half the sets at u = 2 line and never holds it: then
// this path says nothing, and the prime ladder applies.
struct PowerOfTwoLine {
  std::optional<std::uint64_t> line_bytes;
  std::uint64_t first_beyond_stride = 0;  // smallest stride that held beyond_factor x size
  double raw_ratio = 0;                   // size / capacity in elements there
  Confidence confidence;                  // with line_bytes only
  std::string note;                       // why inconclusive, or remarks
};

// `strides`: power-of-two strides with fits_at_probe judged at beyond_factor x size and, for the
// first that fitted, its searched capacity. Confidence: octave_closeness of the raw ratio to the
// power of two (as infer_line) x agreement of the strides with the line: a stride agrees when it
// fitted exactly if it is at least twice the line (below, the cache holds only the size; from
// twice the line on, an index that spreads every 2^m-th line evenly holds 2^m x the size).
PowerOfTwoLine infer_line_from_power_of_two_strides(std::uint64_t size_bytes,
                                                    std::span<const StrideCapacity> strides);

// The power of two nearest `value` on a log scale (value > 0).
std::uint64_t nearest_power_of_two(double value);

}  // namespace memtopo
