#include "probes/sharing/sharing_relation.hpp"

#include <algorithm>

namespace memtopo {
namespace {

// How clearly one direction shows what its pair concluded.
ConfidenceFactor strength_of(const Direction& d, bool shared, const std::string& chased,
                             const std::string& swept) {
  const std::string what = chased + "'s chase after a " + swept + " sweep:";
  if (shared) {
    return contrast(d.contrast, kExpectedEvictedShare,
                    what + " unexplained misses, against the share a shared array loses,");
  }
  return contrast(std::max(0.0, kExpectedEvictedShare - d.contrast), kExpectedEvictedShare,
                  what + " the part of a shared array's loss that stayed away,");
}

const ConfidenceFactor& weaker(const ConfidenceFactor& x, const ConfidenceFactor& y) {
  return y.value < x.value ? y : x;
}

}  // namespace

Confidence PairConclusion::confidence() const {
  return Confidence{agreement(agreeing, directions, "directions of the pair"), strength};
}

PairConclusion conclude_pair(const Direction* ab, const Direction* ba, const std::string& a,
                             const std::string& b) {
  const bool has_ab = ab && ab->measured;
  const bool has_ba = ba && ba->measured;
  PairConclusion c;
  if (!has_ab && !has_ba) {
    c.strength = contrast(0, kExpectedEvictedShare, "no direction measured:");
    return c;
  }
  if (!has_ab || !has_ba) {
    const bool reversed = !has_ab;
    const Direction& only = reversed ? *ba : *ab;
    c.shared = only.evicted();
    c.directions = c.agreeing = 1;
    c.strength = strength_of(only, c.shared, reversed ? b : a, reversed ? a : b);
    return c;
  }
  c.directions = 2;
  if (ab->evicted() == ba->evicted()) {
    c.shared = ab->evicted();
    c.agreeing = 2;
    c.strength = weaker(strength_of(*ab, c.shared, a, b), strength_of(*ba, c.shared, b, a));
    return c;
  }
  // One direction evicted and the other did not: a positive observation (B's loads reached
  // A's lines) outweighs an absent one, but only one of the two directions agrees, and the
  // pair is flagged.
  c.shared = true;
  c.agreeing = 1;
  c.strength = ab->evicted() ? strength_of(*ab, true, a, b) : strength_of(*ba, true, b, a);
  c.contradiction = ab->evicted() ? a + "'s chase missed after a " + b + " sweep, but " + b +
                                        "'s did not after an " + a + " sweep"
                                  : b + "'s chase missed after an " + a + " sweep, but " + a +
                                        "'s did not after a " + b + " sweep";
  return c;
}

Confidence SharingRelation::element_confidence(std::size_t a) const {
  std::size_t directions = 0, agreeing = 0, compared = 0;
  const ConfidenceFactor* least_clear = nullptr;
  for (std::size_t b = 0; b < pairs.size(); ++b) {
    const PairConclusion& pair = pairs[a][b];
    if (b == a || pair.directions == 0) continue;
    ++compared;
    directions += pair.directions;
    agreeing += pair.agreeing;
    if (!least_clear || pair.strength.value < least_clear->value) least_clear = &pair.strength;
  }
  Confidence confidence{agreement(agreeing, directions,
                                  "directions measured for " + std::to_string(compared) +
                                      " pairs agreeing with their pair's verdict")};
  if (least_clear) confidence *= *least_clear;
  return confidence;
}

SharingRelation conclude_relation(
    const std::vector<std::string>& elements,
    const std::map<std::pair<std::size_t, std::size_t>, Direction>& directions) {
  const std::size_t n = elements.size();
  SharingRelation r{
      elements, std::vector<std::vector<PairConclusion>>(n, std::vector<PairConclusion>(n)), {}};
  const auto find = [&](std::size_t a, std::size_t b) -> const Direction* {
    const auto it = directions.find({a, b});
    return it == directions.end() ? nullptr : &it->second;
  };
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = a + 1; b < n; ++b) {
      r.pairs[a][b] = conclude_pair(find(a, b), find(b, a), elements[a], elements[b]);
      r.pairs[b][a] = r.pairs[a][b];
      if (!r.pairs[a][b].contradiction.empty()) {
        r.contradictions.push_back(r.pairs[a][b].contradiction);
      }
    }
  }
  // Storage sharing is an equivalence: A~B and B~C must give A~C.
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      for (std::size_t c = a + 1; c < n; ++c) {
        if (b == a || b == c || !r.pairs[a][b].shared || !r.pairs[b][c].shared ||
            r.pairs[a][c].shared) {
          continue;
        }
        r.contradictions.push_back("not transitive: " + elements[a] + " shares with " +
                                   elements[b] + " and " + elements[b] + " with " + elements[c] +
                                   ", but " + elements[a] + " not with " + elements[c]);
      }
    }
  }
  return r;
}

}  // namespace memtopo
