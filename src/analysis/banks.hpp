#pragma once
// Shared-memory banks from a warp's access patterns (paper 000, 3.1 and 4.1: the stride method).
//
// A warp whose lanes load words that fall into one bank is served in several passes: the
// conflict degree, the largest number of distinct bank-wide words any one bank must deliver
// (lanes reading the same word share a pass: broadcast, multicast). For a hypothesis of B banks
// of w bytes, the degree of every pattern follows (predicted_degree); for lanes at a stride of s
// bank-wide words it is the paper's gcd rule, ceil(lanes x gcd(s, B) / B). A pattern's cycles
// grow with its degree, cycles = base + per_pass x (degree - 1), so the hypothesis that explains
// the measured cycles of every pattern is the device's. Pure functions of numbers.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace memtopo {

// One warp access: lane k loads word_bytes at byte offset lane_offsets[k].
struct BankPattern {
  std::string name;  // "stride 3 x 4 B", "broadcast", ... for evidence
  std::vector<std::uint64_t> lane_offsets;
  std::uint32_t word_bytes = 4;
};

// Lane k at k x stride_words x word_bytes (paper 000, Listing 1).
BankPattern stride_pattern(std::uint32_t lanes, std::uint32_t stride_words,
                           std::uint32_t word_bytes);
// Every lane the same word: one pass on any bank layout.
BankPattern broadcast_pattern(std::uint32_t lanes, std::uint32_t word_bytes);
// Groups of `group_lanes` lanes share a word; the groups' words at a stride of stride_words.
BankPattern multicast_pattern(std::uint32_t lanes, std::uint32_t group_lanes,
                              std::uint32_t stride_words, std::uint32_t word_bytes);
// Exactly `degree` distinct words in one bank, `row_bytes` (banks x width) apart: lanes below
// degree read words 0 .. degree-1, the others the last one. The conflict ladder.
BankPattern degree_ladder_pattern(std::uint32_t lanes, std::uint32_t degree,
                                  std::uint64_t row_bytes);

// The patterns of the stride method: lanes at strides of 1 to kSweepMaxStride words of 4 and of
// 8 bytes, a broadcast of each word size, and multicasts (groups of 2 to 16 lanes sharing a word,
// the words 1 and 32 words apart). Enough to tell every hypothesis of bank_hypotheses() apart.
inline constexpr std::uint32_t kSweepMaxStride = 64;
std::vector<BankPattern> stride_method_patterns(std::uint32_t lanes);

struct BankHypothesis {
  std::uint32_t banks = 0;
  std::uint32_t width_bytes = 0;
  bool operator==(const BankHypothesis&) const = default;
};

// Every layout the inference considers: 2 to 64 banks of 4, 8 or 16 bytes.
std::vector<BankHypothesis> bank_hypotheses();

// Passes the pattern needs under the hypothesis: a lane's load covers every width-wide word its
// bytes fall into; the most distinct such words in one bank.
std::uint32_t predicted_degree(const BankPattern& pattern, const BankHypothesis& hypothesis);

// cycles = base_cycles[word size] + per_pass_cycles x (degree - 1): one cost per extra pass,
// and a base of its own per word size, so that a wide load's fixed extra cost is not taken for
// a pass.
struct DegreeScale {
  std::vector<std::pair<std::uint32_t, double>> base_cycles;  // (word bytes, cycles at degree 1)
  double per_pass_cycles = 0;
  double base_for(std::uint32_t word_bytes) const;
};

// Least-squares fit of `cycles` (one per pattern) against `degrees`, the patterns grouped by
// word size for their bases (fit_parallel_lines, analysis/line_fit). per_pass_cycles is 0 when no group has two different degrees.
DegreeScale fit_degree_scale(std::span<const BankPattern> patterns, std::span<const double> cycles,
                             std::span<const std::uint32_t> degrees);

// The degree `cycles` stand for on `scale` (a real number); 0 when per_pass_cycles <= 0.
double measured_degree(double cycles, std::uint32_t word_bytes, const DegreeScale& scale);

// A measured degree agrees with a predicted one within half a pass, or within
// kDegreeRelativeTolerance of it for high degrees (a 32-way conflict's cost need not be exactly
// 32 passes' worth).
inline constexpr double kDegreeAbsoluteTolerance = 0.5;
inline constexpr double kDegreeRelativeTolerance = 0.125;
bool degree_agrees(double measured, std::uint32_t predicted);

// One hypothesis judged on every pattern.
struct HypothesisScore {
  BankHypothesis hypothesis;
  DegreeScale scale;
  std::vector<std::uint32_t> predicted;  // per pattern
  std::vector<double> measured;          // per pattern, on this hypothesis' scale
  std::vector<bool> agrees;              // per pattern
  std::size_t agreeing = 0;
};

HypothesisScore score_hypothesis(std::span<const BankPattern> patterns,
                                 std::span<const double> cycles, const BankHypothesis& hypothesis);

// The strongest alternative to a chosen value: the best hypothesis with another value of the
// property (banks or width), and the patterns on which its prediction differs from the choice's.
struct BankRival {
  BankHypothesis hypothesis;
  std::size_t agreeing = 0;         // its agreeing patterns
  std::size_t distinguishing = 0;   // patterns where the two predict different degrees
  std::size_t chosen_agreeing = 0;  // the choice's agreeing patterns among those
};

struct BankInference {
  std::size_t patterns = 0;
  // The hypothesis with the most agreeing patterns (the first of bank_hypotheses() among
  // equals), and whether it is the only one with that many.
  HypothesisScore best;
  bool unique = false;
  // Every hypothesis with the most agreeing patterns agrees on it, and the best explains at
  // least kMinExplainedShare of the patterns: the value; nullopt otherwise.
  std::optional<std::uint32_t> banks;
  std::optional<std::uint32_t> width_bytes;
  std::optional<BankRival> banks_rival;  // with banks: the best with another bank count
  std::optional<BankRival> width_rival;  // with width_bytes: the best with another width
  std::vector<BankHypothesis> tied;      // the hypotheses with the most agreeing patterns
  std::string why_not;                   // when banks or width are nullopt
};

// Below this share of agreeing patterns no hypothesis explains the measurement (a threshold
// for a conclusion, not a confidence).
inline constexpr double kMinExplainedShare = 0.5;

// Scores every hypothesis of bank_hypotheses() on the patterns' cycles (one number per
// pattern, e.g. the p50 of its timed accesses) and picks the one that explains most of them.
// Throws std::invalid_argument when the spans differ in length or are empty.
BankInference infer_banks(std::span<const BankPattern> patterns, std::span<const double> cycles);

}  // namespace memtopo
