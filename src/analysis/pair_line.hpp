#pragma once
// The line from pairs of words: a path of the SM-local line probe that does not depend on how
// the cache picks a set. Each pair is two words of one random block, at byte offsets o and
// o XOR d (d a power of two): they share a line exactly when d is below the line, since they
// differ in that one address bit. N pairs at random blocks touch N lines while d < line and 2N
// lines once d >= line, whatever the set index (random blocks spread over the sets alike under a
// modulo or a hashed index; power-of-two strides do not, which is how a hashed L1 made the
// texture path's capacities at 1 KiB look like 512 B lines on an H200).
//
// Random blocks fill the sets unevenly, so the share of loads that miss grows gradually with
// the count of lines rather than at one edge (under random replacement even more so). The probe
// therefore first chases a ladder of counts of reference pairs (d = one word: always one line)
// and picks the count N whose double misses most more than N itself; then it chases N pairs at
// every offset d. The scores of the offsets form two plateaus, one line below the line and two
// from it on: the line is the offset where the higher one starts. (They are not compared with
// the reference pairs' scores: those share one sector, while pairs from a sector apart on fetch
// two sectors of their line, and under thrashing each sector misses on its own.)
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "analysis/confidence.hpp"

namespace memtopo {

// A chase of reference pairs, and how much it missed (FitVerdict::miss_score).
struct PairLadderPoint {
  std::uint64_t pairs = 0;
  double miss_score = 0;
};

// The count the offsets are chased at: N and the ladder's point at about 2N, with their scores.
struct PairCount {
  std::uint64_t pairs = 0;
  double one_line_score = 0;  // N reference pairs: N lines
  double split_score = 0;     // about 2N reference pairs: the lines N split pairs take
  std::uint64_t split_pairs = 0;
};

// The least gap between the two scores that tells one line from two: below it the ladder's
// counts do not separate (a cache whose misses barely grow with the count).
inline constexpr double kMinPairScoreGap = 0.1;

// Over a ladder in steps of sqrt(2) (ascending counts), the point whose second next (about
// twice the count) misses most more than it does; nullopt when no gap reaches kMinPairScoreGap.
std::optional<PairCount> choose_pair_count(std::span<const PairLadderPoint> ladder);

// A chase of N pairs at one offset.
struct PairVerdict {
  std::uint64_t offset_bytes = 0;  // d, a power of two
  double miss_score = 0;
};

struct PairLineInference {
  std::optional<std::uint64_t> line_bytes;
  Confidence confidence;                           // with line_bytes only
  double one_line_score = 0, two_lines_score = 0;  // the plateaus' means (0 without a step)
  std::string note;                                // why inconclusive, or remarks
};

// `verdicts` in ascending offsets. The step: the split of the offsets into a lower and an upper
// run whose two means fit the scores best (least squares); the line is the first offset of the
// upper run. Confidence: agreement of the offsets with the step (each on its run's side of the
// midway between the means). Inconclusive with fewer than two offsets, when the upper run does
// not miss at least kMinPairScoreGap more (no step: every offset one line, a line beyond the
// largest offset, or every offset two, a line of the smallest; the scores do not tell which),
// and when more than a quarter of the offsets disagree with the step.
PairLineInference infer_line_from_pairs(std::span<const PairVerdict> verdicts);

}  // namespace memtopo
