#include "analysis/pair_line.hpp"

#include <cstddef>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace memtopo {
namespace {

// The best line may leave at most this share of the verdicts disagreeing: one flipped verdict of
// six offsets is noise at the fit threshold, two of six no longer describe a split.
constexpr double kMaxDisagreeingShare = 0.25;

std::string score_text(double score) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", score);
  return text;
}

double mean_of(std::span<const PairVerdict> verdicts) {
  double sum = 0;
  for (const PairVerdict& v : verdicts) sum += v.miss_score;
  return sum / static_cast<double>(verdicts.size());
}

double squared_error(std::span<const PairVerdict> verdicts, double mean) {
  double sum = 0;
  for (const PairVerdict& v : verdicts) sum += (v.miss_score - mean) * (v.miss_score - mean);
  return sum;
}

}  // namespace

std::optional<PairCount> choose_pair_count(std::span<const PairLadderPoint> ladder) {
  std::optional<PairCount> best;
  for (std::size_t i = 0; i + 2 < ladder.size(); ++i) {
    const double gap = ladder[i + 2].miss_score - ladder[i].miss_score;
    if (gap < kMinPairScoreGap) continue;
    if (!best || gap > best->split_score - best->one_line_score) {
      best = PairCount{ladder[i].pairs, ladder[i].miss_score, ladder[i + 2].miss_score,
                       ladder[i + 2].pairs};
    }
  }
  return best;
}

PairLineInference infer_line_from_pairs(std::span<const PairVerdict> verdicts) {
  PairLineInference out;
  if (verdicts.size() < 2) {
    out.note = "fewer than two pair offsets";
    return out;
  }
  for (std::size_t i = 1; i < verdicts.size(); ++i) {
    if (verdicts[i].offset_bytes <= verdicts[i - 1].offset_bytes) {
      throw std::invalid_argument("infer_line_from_pairs: offsets must ascend");
    }
  }
  std::size_t step = 1;
  double best_error = std::numeric_limits<double>::infinity();
  for (std::size_t k = 1; k < verdicts.size(); ++k) {
    const auto lower = verdicts.first(k), upper = verdicts.subspan(k);
    const double error =
        squared_error(lower, mean_of(lower)) + squared_error(upper, mean_of(upper));
    if (error < best_error) {
      best_error = error;
      step = k;
    }
  }
  const double low = mean_of(verdicts.first(step)), high = mean_of(verdicts.subspan(step));
  const std::uint64_t line = verdicts[step].offset_bytes;
  if (high - low < kMinPairScoreGap) {
    out.note = "the offsets' miss scores show no step (" + score_text(low) + " below " +
               std::to_string(line) + " B, " + score_text(high) +
               " from it): every offset one "
               "line or every offset two, not told apart";
    return out;
  }
  const double midway = (low + high) / 2;
  std::size_t agreeing = 0;
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    agreeing += (verdicts[i].miss_score > midway) == (i >= step) ? 1 : 0;
  const std::size_t checks = verdicts.size();
  if (static_cast<double>(checks - agreeing) > kMaxDisagreeingShare * static_cast<double>(checks)) {
    out.note = std::to_string(checks - agreeing) + " of " + std::to_string(checks) +
               " pair offsets disagree with the best step (at " + std::to_string(line) +
               " B): the scores do not describe one line";
    return out;
  }
  out.line_bytes = line;
  out.one_line_score = low;
  out.two_lines_score = high;
  out.confidence = Confidence{agreement(agreeing, checks,
                                        "pair offsets on their side of one step at " +
                                            std::to_string(line) + " B (miss score " +
                                            score_text(low) + " -> " + score_text(high) + ")")};
  return out;
}

}  // namespace memtopo
