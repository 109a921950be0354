#pragma once
// How <element>.shared_with concludes from what it measured: every direction (A's chase timed
// after B's sweep) is a check of whether A and B share storage. The directions of a pair give
// its verdict, the pairs give the relation (made symmetric, checked for transitivity), and the
// confidences follow the rules of analysis/confidence.hpp. Pure: no backend, no topology.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/confidence.hpp"
#include "analysis/size_rule.hpp"

namespace memtopo {

// The smallest share of A's lines the sharing plan evicts from a shared LRU array (a sweep of
// 0.8 of the array on top of a chase of a quarter of it: 5 % of the array, 20 % of the chase):
// a direction whose contrast reaches it shows sharing at full strength.
inline constexpr double kExpectedEvictedShare = 0.2;

// A's chase after B's sweep.
struct Direction {
  bool measured = false;
  FitVerdict verdict;
  // A's misses beyond those outliers or the control sweep explain, per element, over the miss
  // fraction of a chase that certainly overflows A at this stride.
  double contrast = 0;
  bool evicted() const { return measured && !verdict.fits; }
};

// One unordered pair's verdict from its (up to) two directions.
struct PairConclusion {
  bool shared = false;
  std::size_t directions = 0;  // directions measured
  std::size_t agreeing = 0;    // of them, those whose own verdict is `shared`
  // contrast (analysis/confidence.hpp) of the least clear direction that agrees: its
  // contrast against kExpectedEvictedShare when shared, the part of that share that stayed
  // away when not.
  ConfidenceFactor strength;
  std::string contradiction;  // non-empty when the directions disagree

  // agreement(agreeing, directions) x strength.
  Confidence confidence() const;
};

// The verdict on (a, b) from A's chase after B's sweep (`ab`) and B's after A's (`ba`); either
// may be null or unmeasured. A positive direction (B's loads reached A's lines) outweighs a
// negative one: the pair is shared, one of its two directions agrees, and the contradiction
// says which. Names are for the texts.
PairConclusion conclude_pair(const Direction* ab, const Direction* ba, const std::string& a,
                             const std::string& b);

// The relation over the compared elements.
struct SharingRelation {
  std::vector<std::string> elements;
  std::vector<std::vector<PairConclusion>> pairs;  // pairs[a][b] == pairs[b][a]; diagonal unused
  std::vector<std::string> contradictions;         // disagreeing pairs, then transitivity

  // The confidence of element a's shared_with, one finding checked by every direction measured
  // for its pairs: agreement(directions agreeing with their pair's verdict, directions) x the
  // strength of its least clear pair.
  Confidence element_confidence(std::size_t a) const;
};

// Concludes every pair of `elements` from `directions` ((A, B) indices -> A's chase after B's
// sweep) and checks that sharing is an equivalence: A~B and B~C must give A~C.
SharingRelation conclude_relation(
    const std::vector<std::string>& elements,
    const std::map<std::pair<std::size_t, std::size_t>, Direction>& directions);

}  // namespace memtopo
