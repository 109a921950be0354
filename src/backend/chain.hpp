#pragma once
// Builds the pointer-chase array a ChaseSpec describes. Shared by every backend, so that a
// simulated chase and a GPU chase walk exactly the same addresses.
#include <cstdint>
#include <span>
#include <vector>

#include "backend/experiment.hpp"

namespace memtopo {

// Checks a spec for consistency (stride a multiple of 4 and > 0, footprint holding at least
// one element, explicit indices inside the footprint and free of repeats, start on the chain).
// Throws ExperimentError naming the problem.
void validate(const ChaseSpec& spec);

// Whether a function that builds a chain validates its spec first (the default), or trusts a
// caller that has: a backend validates every spec of a batch before it runs any
// (check_runnable), and validate() costs about as much as building the chain (a bitmap or a
// sorted copy of an explicit chain's indices, a search for its start), so its runner builds the
// chains with `validated_by_caller`. A spec validate() would reject is then undefined.
enum class SpecCheck { validate, validated_by_caller };

// The array of footprint_bytes / 4 words; word i holds the index of the word loaded after it
// (with private segments, every segment's chain).
// Words not on the chain hold 0xFFFFFFFF so that a stray visit is detectable.
std::vector<std::uint32_t> build_chain(const ChaseSpec& spec,
                                       SpecCheck check = SpecCheck::validate);

// The word indices of the chain in visiting order, starting from element 0 of the order
// (sequential: 0, s, 2s ...; random: the permutation's cycle from word 0). With private
// segments, the chain of segment 0.
std::vector<std::uint32_t> chain_order(const ChaseSpec& spec,
                                       SpecCheck check = SpecCheck::validate);
// The same without copying an explicit chain's indices: a view of spec.indices, or of `storage`
// filled with the order. Valid while both live.
std::span<const std::uint32_t> chain_order_view(const ChaseSpec& spec,
                                                std::vector<std::uint32_t>& storage,
                                                SpecCheck check = SpecCheck::validate);
// The chain chaser `chaser` walks: chain_order(spec), shifted into the chaser's own segment with
// private segments, and the same for every chaser otherwise.
std::vector<std::uint32_t> chain_order(const ChaseSpec& spec, std::uint32_t chaser);

// The chain's word indices in visiting order as 64-bit values: a wide chain's wide_indices, or
// chain_order(spec) widened (chain_order itself rejects wide chains). Validates the spec
// unless `check` says the caller has.
std::vector<std::uint64_t> wide_order(const ChaseSpec& spec, SpecCheck check = SpecCheck::validate);

inline constexpr std::uint32_t kNotOnChain = 0xFFFFFFFFu;

// Small, portable, seeded generator (splitmix64): the same seed gives the same chain on every
// compiler and standard library, unlike std::uniform_int_distribution.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) without modulo bias (modulo with rejection of the top partial range).
  std::uint64_t below(std::uint64_t bound);
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace memtopo
