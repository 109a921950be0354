#include "analysis/banks.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/line_fit.hpp"

namespace memtopo {
namespace {

constexpr std::uint32_t kFewestBanks = 2;
constexpr std::uint32_t kMostBanks = 64;
constexpr std::uint32_t kBankWidths[] = {4, 8, 16};
// The word sizes of the sweep: ld.shared.u32 and .v2.u32 (a load as wide as two 4-byte banks).
constexpr std::uint32_t kSweepWordSizes[] = {4, 8};
// Multicast: lanes per shared word, and the strides between the words: adjacent (no conflict
// on any layout of 4-byte words) and 32 words (every word in one bank on 32 or 16 banks).
constexpr std::uint32_t kMulticastGroups[] = {2, 4, 8, 16};
constexpr std::uint32_t kMulticastStrides[] = {1, 32};
constexpr std::uint32_t kMulticastWordBytes = 4;

std::string bytes_text(std::uint64_t bytes) {
  return std::to_string(bytes) + " B";
}

BankPattern pattern_of(std::string name, std::uint32_t lanes, std::uint32_t word_bytes,
                       auto offset_of_lane) {
  BankPattern pattern{std::move(name), {}, word_bytes};
  pattern.lane_offsets.reserve(lanes);
  for (std::uint32_t lane = 0; lane < lanes; ++lane) {
    pattern.lane_offsets.push_back(offset_of_lane(lane));
  }
  return pattern;
}

// The best hypothesis whose `value` differs from the reference's, against the reference.
template <typename Value>
std::optional<BankRival> rival_of(const std::vector<HypothesisScore>& ranked, Value value) {
  const HypothesisScore& reference = ranked.front();
  for (const HypothesisScore& other : ranked) {
    if (value(other.hypothesis) == value(reference.hypothesis)) continue;
    BankRival rival{other.hypothesis, other.agreeing, 0, 0};
    for (std::size_t i = 0; i < reference.predicted.size(); ++i) {
      if (other.predicted[i] == reference.predicted[i]) continue;
      ++rival.distinguishing;
      rival.chosen_agreeing += reference.agrees[i] ? 1 : 0;
    }
    return rival;
  }
  return std::nullopt;
}

// True when every tied hypothesis has the same `value`.
template <typename Value>
bool tied_agree(const std::vector<BankHypothesis>& tied, Value value) {
  return std::all_of(tied.begin(), tied.end(),
                     [&](const BankHypothesis& h) { return value(h) == value(tied.front()); });
}

}  // namespace

BankPattern stride_pattern(std::uint32_t lanes, std::uint32_t stride_words,
                           std::uint32_t word_bytes) {
  return pattern_of(
      "stride " + std::to_string(stride_words) + " x " + bytes_text(word_bytes), lanes, word_bytes,
      [&](std::uint32_t lane) { return std::uint64_t{lane} * stride_words * word_bytes; });
}

BankPattern broadcast_pattern(std::uint32_t lanes, std::uint32_t word_bytes) {
  return pattern_of("broadcast " + bytes_text(word_bytes), lanes, word_bytes,
                    [](std::uint32_t) { return std::uint64_t{0}; });
}

BankPattern multicast_pattern(std::uint32_t lanes, std::uint32_t group_lanes,
                              std::uint32_t stride_words, std::uint32_t word_bytes) {
  return pattern_of("multicast " + std::to_string(group_lanes) + " lanes a word, stride " +
                        std::to_string(stride_words) + " x " + bytes_text(word_bytes),
                    lanes, word_bytes, [&](std::uint32_t lane) {
                      return std::uint64_t{lane / group_lanes} * stride_words * word_bytes;
                    });
}

BankPattern degree_ladder_pattern(std::uint32_t lanes, std::uint32_t degree,
                                  std::uint64_t row_bytes) {
  return pattern_of(
      "degree " + std::to_string(degree) + ": words " + bytes_text(row_bytes) + " apart", lanes, 4,
      [&](std::uint32_t lane) { return std::uint64_t{std::min(lane, degree - 1)} * row_bytes; });
}

std::vector<BankPattern> stride_method_patterns(std::uint32_t lanes) {
  std::vector<BankPattern> patterns;
  for (const std::uint32_t word_bytes : kSweepWordSizes) {
    patterns.push_back(broadcast_pattern(lanes, word_bytes));
    for (std::uint32_t stride = 1; stride <= kSweepMaxStride; ++stride) {
      patterns.push_back(stride_pattern(lanes, stride, word_bytes));
    }
  }
  for (const std::uint32_t group : kMulticastGroups) {
    for (const std::uint32_t stride : kMulticastStrides) {
      patterns.push_back(multicast_pattern(lanes, group, stride, kMulticastWordBytes));
    }
  }
  return patterns;
}

std::vector<BankHypothesis> bank_hypotheses() {
  std::vector<BankHypothesis> hypotheses;
  for (std::uint32_t banks = kFewestBanks; banks <= kMostBanks; ++banks) {
    for (const std::uint32_t width : kBankWidths) hypotheses.push_back({banks, width});
  }
  return hypotheses;
}

std::uint32_t predicted_degree(const BankPattern& pattern, const BankHypothesis& hypothesis) {
  // Distinct bank-wide words the warp touches, then how many fall into each bank.
  std::vector<std::uint64_t> words;
  for (const std::uint64_t offset : pattern.lane_offsets) {
    const std::uint64_t last = (offset + pattern.word_bytes - 1) / hypothesis.width_bytes;
    for (std::uint64_t word = offset / hypothesis.width_bytes; word <= last; ++word) {
      words.push_back(word);
    }
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  std::vector<std::uint32_t> per_bank(hypothesis.banks, 0);
  std::uint32_t degree = 0;
  for (const std::uint64_t word : words) {
    degree = std::max(degree, ++per_bank[word % hypothesis.banks]);
  }
  return degree;
}

double DegreeScale::base_for(std::uint32_t word_bytes) const {
  for (const auto& [bytes, cycles] : base_cycles) {
    if (bytes == word_bytes) return cycles;
  }
  return 0;
}

DegreeScale fit_degree_scale(std::span<const BankPattern> patterns, std::span<const double> cycles,
                             std::span<const std::uint32_t> degrees) {
  // Parallel lines against x = degree - 1: one cost per pass, one base per word size.
  std::vector<double> passes;
  std::vector<std::size_t> word_bytes;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    passes.push_back(degrees[i] - 1.0);
    word_bytes.push_back(patterns[i].word_bytes);
  }
  DegreeScale scale;
  if (const auto lines = fit_parallel_lines(passes, cycles.first(patterns.size()), word_bytes)) {
    scale.per_pass_cycles = lines->slope;
    for (const auto& [bytes, base] : lines->intercepts)
      scale.base_cycles.emplace_back(static_cast<std::uint32_t>(bytes), base);
    return scale;
  }
  // No word size has two different degrees: no cost per pass, each base its group's mean.
  std::map<std::uint32_t, std::pair<double, std::size_t>> sums;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    auto& [sum, count] = sums[patterns[i].word_bytes];
    sum += cycles[i];
    ++count;
  }
  for (const auto& [bytes, sum_count] : sums)
    scale.base_cycles.emplace_back(bytes, sum_count.first / static_cast<double>(sum_count.second));
  return scale;
}

double measured_degree(double cycles, std::uint32_t word_bytes, const DegreeScale& scale) {
  if (scale.per_pass_cycles <= 0) return 0;
  return 1 + (cycles - scale.base_for(word_bytes)) / scale.per_pass_cycles;
}

bool degree_agrees(double measured, std::uint32_t predicted) {
  const double tolerance = std::max(kDegreeAbsoluteTolerance, kDegreeRelativeTolerance * predicted);
  return std::abs(measured - predicted) <= tolerance;
}

HypothesisScore score_hypothesis(std::span<const BankPattern> patterns,
                                 std::span<const double> cycles, const BankHypothesis& hypothesis) {
  HypothesisScore score{hypothesis, {}, {}, {}, {}, 0};
  for (const BankPattern& pattern : patterns) {
    score.predicted.push_back(predicted_degree(pattern, hypothesis));
  }
  score.scale = fit_degree_scale(patterns, cycles, score.predicted);
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const double measured = measured_degree(cycles[i], patterns[i].word_bytes, score.scale);
    // A scale without a cost per pass explains nothing, whatever it predicts.
    const bool agrees =
        score.scale.per_pass_cycles > 0 && degree_agrees(measured, score.predicted[i]);
    score.measured.push_back(measured);
    score.agrees.push_back(agrees);
    score.agreeing += agrees ? 1 : 0;
  }
  return score;
}

BankInference infer_banks(std::span<const BankPattern> patterns, std::span<const double> cycles) {
  if (patterns.empty() || patterns.size() != cycles.size()) {
    throw std::invalid_argument("infer_banks: one cycle count per pattern, at least one pattern");
  }
  std::vector<HypothesisScore> ranked;
  for (const BankHypothesis& hypothesis : bank_hypotheses()) {
    ranked.push_back(score_hypothesis(patterns, cycles, hypothesis));
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.agreeing > b.agreeing; });

  BankInference inference;
  inference.patterns = patterns.size();
  inference.best = ranked.front();
  const std::size_t most = ranked.front().agreeing;
  for (const HypothesisScore& score : ranked) {
    if (score.agreeing == most) inference.tied.push_back(score.hypothesis);
  }
  inference.unique = inference.tied.size() == 1;
  if (most < kMinExplainedShare * static_cast<double>(patterns.size())) {
    inference.why_not = "no bank layout explains the cycles of most patterns (the best, " +
                        std::to_string(ranked.front().hypothesis.banks) + " banks of " +
                        bytes_text(ranked.front().hypothesis.width_bytes) + ", " +
                        std::to_string(most) + " of " + std::to_string(patterns.size()) + ")";
    return inference;
  }
  const auto banks_of = [](const BankHypothesis& h) { return h.banks; };
  const auto width_of = [](const BankHypothesis& h) { return h.width_bytes; };
  if (tied_agree(inference.tied, banks_of)) {
    inference.banks = ranked.front().hypothesis.banks;
    inference.banks_rival = rival_of(ranked, banks_of);
  }
  if (tied_agree(inference.tied, width_of)) {
    inference.width_bytes = ranked.front().hypothesis.width_bytes;
    inference.width_rival = rival_of(ranked, width_of);
  }
  if (!inference.banks || !inference.width_bytes) {
    inference.why_not = std::to_string(inference.tied.size()) + " bank layouts explain the same " +
                        std::to_string(most) + " of " + std::to_string(patterns.size()) +
                        " patterns";
  }
  return inference;
}

}  // namespace memtopo
