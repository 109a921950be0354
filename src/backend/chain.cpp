#include "backend/chain.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace memtopo {

std::uint64_t SplitMix64::below(std::uint64_t bound) {
  if (bound <= 1) return 0;
  // Rejection sampling on the top bits keeps the result unbiased for any bound.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  std::uint64_t x;
  do {
    x = next();
  } while (x >= limit);
  return x % bound;
}

std::uint64_t segment_bytes(const ChaseSpec& spec) {
  if (!spec.private_segments || spec.chasers <= 1 || spec.stride_bytes == 0) {
    return spec.footprint_bytes;
  }
  const std::uint64_t per_chaser = spec.footprint_bytes / spec.chasers;
  return per_chaser - per_chaser % spec.stride_bytes;
}

std::uint64_t chain_length(const ChaseSpec& spec) {
  if (spec.order == ChaseOrder::explicit_indices) {
    return is_wide(spec) ? spec.wide_indices.size() : spec.indices.size();
  }
  if (spec.stride_bytes == 0) return 0;
  return segment_bytes(spec) / spec.stride_bytes;
}

ChaseSpec eviction_chain_spec(const ChaseSpec& spec) {
  if (!spec.eviction) throw ExperimentError("chase spec: no eviction sweep to build a chain for");
  ChaseSpec sweep;
  sweep.path = spec.eviction->path;
  sweep.footprint_bytes = spec.eviction->footprint_bytes;
  sweep.stride_bytes = spec.eviction->stride_bytes;
  sweep.order = ChaseOrder::sequential;
  return sweep;
}

std::uint64_t loads_per_chaser(const ChaseSpec& spec) {
  std::uint64_t loads = std::uint64_t{spec.warm_passes} * chain_length(spec) + spec.timed_loads;
  if (spec.eviction)
    loads += std::uint64_t{spec.eviction->passes} * chain_length(eviction_chain_spec(spec));
  return loads;
}

namespace {

// Arrays up to this many words are checked for repeats with a bitmap (32 MiB at most), when
// it has at most kBitmapWordsPerIndex bits per index: a few thousand indices over a GiB (the TLB
// row's ladders) zeroed a 32 MiB bitmap for every chase, half of a simulated TLB row's time;
// has_repeat costs microseconds.
constexpr std::uint64_t kBitmapWords = std::uint64_t{1} << 28;
constexpr std::uint64_t kBitmapWordsPerIndex = 64;

// Whether `indices` hold a value twice: a set with open addressing in one vector of twice their
// count (a sorted copy of a geometry probe's eviction tests, indices spread over a large array,
// was a tenth of their simulated run; a std::unordered_set's node per index was slower still).
// The largest Index marks an empty slot: validate() has checked that every index lies below
// `words` (and a wide one below words - 1) first, so none is that large.
template <typename Index>
bool has_repeat(std::span<const Index> indices) {
  if (indices.empty()) return false;
  constexpr Index kEmpty = std::numeric_limits<Index>::max();
  const int bits = std::bit_width(std::bit_ceil(2 * indices.size() + 1)) - 1;
  std::vector<Index> slots(std::size_t{1} << bits, kEmpty);
  const std::size_t mask = slots.size() - 1;
  for (const Index index : indices) {
    // Fibonacci hashing spreads indices that share their low bits (a stride) over the slots.
    std::size_t slot = (std::uint64_t{index} * 0x9E3779B97F4A7C15ull) >> (64 - bits) & mask;
    while (slots[slot] != kEmpty) {
      if (slots[slot] == index) return true;
      slot = (slot + 1) & mask;
    }
    slots[slot] = index;
  }
  return false;
}

// An index that occurs more than once, if any; every index is below `words`. Chains of a million
// elements are validated for every chase: a bitmap where the array is small enough, else
// has_repeat, and only for a repeat the sorted copy that names the smallest repeated index.
template <typename Index>
std::optional<Index> repeated_index(std::span<const Index> indices, std::uint64_t words) {
  if (words <= kBitmapWords && words <= kBitmapWordsPerIndex * indices.size()) {
    std::vector<bool> seen(words);
    for (const Index index : indices) {
      if (seen[index]) return index;
      seen[index] = true;
    }
    return std::nullopt;
  }
  if (!has_repeat(indices)) return std::nullopt;
  std::vector<Index> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  return *std::adjacent_find(sorted.begin(), sorted.end());
}

template <typename Fail>
void validate_eviction(const ChaseSpec& spec, const Fail& fail) {
  const EvictionSweep& sweep = *spec.eviction;
  if (sweep.path == LoadPath::shared) fail("an eviction sweep cannot use the shared path");
  if (sweep.path == LoadPath::constant && spec.path == LoadPath::constant) {
    fail("an eviction sweep on the constant path needs a chase on another path (one bank)");
  }
  if (sweep.passes == 0) fail("eviction passes must be at least 1");
  if (sweep.stride_bytes == 0 || sweep.stride_bytes % 4 != 0) {
    fail("eviction stride_bytes must be a positive multiple of 4, got " +
         std::to_string(sweep.stride_bytes));
  }
  if (sweep.footprint_bytes < sweep.stride_bytes) {
    fail("eviction footprint_bytes is smaller than one stride");
  }
  if (sweep.footprint_bytes / 4 > UINT32_MAX) fail("eviction footprint_bytes too large");
}

// A wide chain's own rules (ChaseSpec::wide_indices): explicit 64-bit elements on ca or cg.
template <typename Fail>
void validate_wide(const ChaseSpec& spec, const Fail& fail) {
  if (spec.order != ChaseOrder::explicit_indices || !spec.indices.empty()) {
    fail("wide_indices needs order explicit_indices and no 32-bit indices");
  }
  if (spec.path != LoadPath::ca && spec.path != LoadPath::cg) {
    fail("wide chains run on the ca and cg paths only, not " + std::string(to_string(spec.path)));
  }
  if (spec.eviction || spec.private_segments) {
    fail("wide chains take no eviction sweep and no private segments");
  }
  const std::uint64_t words = spec.footprint_bytes / 4;
  for (const std::uint64_t index : spec.wide_indices) {
    if (index % 2 != 0) fail("wide index " + std::to_string(index) + " is not 8-byte aligned");
    if (index + 1 >= words) {
      fail("wide index " + std::to_string(index) + " lies outside the footprint of " +
           std::to_string(words) + " words");
    }
  }
  if (const auto repeated = repeated_index(std::span(spec.wide_indices), words)) {
    fail("wide index " + std::to_string(*repeated) + " repeats");
  }
}

}  // namespace

void validate(const ChaseSpec& spec) {
  const auto fail = [](const std::string& what) { throw ExperimentError("chase spec: " + what); };
  const std::uint64_t words = spec.footprint_bytes / 4;
  if (spec.footprint_bytes < 4) fail("footprint_bytes must be at least 4");
  if (spec.chasers == 0) fail("chasers must be at least 1");
  if (is_wide(spec)) return validate_wide(spec, fail);
  if (words > UINT32_MAX) fail("footprint_bytes too large for 32-bit word indices");
  if (spec.eviction) validate_eviction(spec, fail);
  if (spec.private_segments && spec.order == ChaseOrder::explicit_indices) {
    fail("private_segments needs a sequential or random order, not explicit_indices");
  }
  if (spec.order == ChaseOrder::explicit_indices) {
    if (spec.indices.empty()) fail("explicit_indices needs a non-empty index list");
    for (auto index : spec.indices) {
      if (index >= words) {
        fail("index " + std::to_string(index) + " lies outside the footprint of " +
             std::to_string(words) + " words");
      }
    }
    if (const auto repeated = repeated_index(std::span(spec.indices), words)) {
      fail("index " + std::to_string(*repeated) + " repeats");
    }
    if (std::find(spec.indices.begin(), spec.indices.end(), spec.start_index) ==
        spec.indices.end()) {
      fail("start_index is not on the explicit chain");
    }
    return;
  }
  if (spec.stride_bytes == 0 || spec.stride_bytes % 4 != 0) {
    fail("stride_bytes must be a positive multiple of 4, got " + std::to_string(spec.stride_bytes));
  }
  if (spec.footprint_bytes < spec.stride_bytes) fail("footprint_bytes is smaller than one stride");
  if (spec.private_segments && segment_bytes(spec) < spec.stride_bytes) {
    fail("private_segments: footprint / chasers holds less than one stride");
  }
  const std::uint32_t step = spec.stride_bytes / 4;
  if (spec.start_index % step != 0 || spec.start_index / step >= chain_length(spec)) {
    fail("start_index " + std::to_string(spec.start_index) + " is not on the chain");
  }
}

std::span<const std::uint32_t> chain_order_view(const ChaseSpec& spec,
                                                std::vector<std::uint32_t>& storage,
                                                SpecCheck check) {
  if (check == SpecCheck::validate) validate(spec);
  if (is_wide(spec)) throw ExperimentError("chain_order: a wide chain's order is wide_order");
  if (spec.order == ChaseOrder::explicit_indices) return spec.indices;
  const std::uint64_t n = chain_length(spec);
  const std::uint32_t step = spec.stride_bytes / 4;
  storage.resize(n);
  for (std::uint64_t k = 0; k < n; ++k) storage[k] = static_cast<std::uint32_t>(k * step);
  if (spec.order == ChaseOrder::random_permutation && n > 2) {
    // Sattolo's algorithm yields a uniformly random single cycle; keep element 0 first so the
    // chase from word 0 walks the whole cycle in this order.
    SplitMix64 rng(spec.seed);
    for (std::uint64_t i = n - 1; i > 1; --i) {
      const std::uint64_t j = 1 + rng.below(i);  // j in [1, i)
      std::swap(storage[i], storage[j]);
    }
  }
  return storage;
}

std::vector<std::uint32_t> chain_order(const ChaseSpec& spec, SpecCheck check) {
  std::vector<std::uint32_t> storage;
  const std::span<const std::uint32_t> order = chain_order_view(spec, storage, check);
  if (order.data() == storage.data()) return storage;
  return {order.begin(), order.end()};
}

std::vector<std::uint32_t> chain_order(const ChaseSpec& spec, std::uint32_t chaser) {
  auto order = chain_order(spec);
  if (!spec.private_segments || chaser == 0) return order;
  if (chaser >= spec.chasers) throw ExperimentError("chain_order: no such chaser");
  const auto shift = static_cast<std::uint32_t>(std::uint64_t{chaser} * segment_bytes(spec) / 4);
  for (auto& word : order) word += shift;
  return order;
}

std::vector<std::uint32_t> build_chain(const ChaseSpec& spec, SpecCheck check) {
  std::vector<std::uint32_t> storage;
  const std::span<const std::uint32_t> order = chain_order_view(spec, storage, check);
  std::vector<std::uint32_t> words(spec.footprint_bytes / 4, kNotOnChain);
  const std::uint32_t segments = spec.private_segments ? spec.chasers : 1;
  const std::uint64_t segment_words = segment_bytes(spec) / 4;
  for (std::uint32_t segment = 0; segment < segments; ++segment) {
    const std::uint64_t shift = segment * segment_words;
    for (std::size_t k = 0; k < order.size(); ++k) {
      words[order[k] + shift] = static_cast<std::uint32_t>(order[(k + 1) % order.size()] + shift);
    }
  }
  return words;
}

std::vector<std::uint64_t> wide_order(const ChaseSpec& spec, SpecCheck check) {
  if (is_wide(spec)) {
    if (check == SpecCheck::validate) validate(spec);
    return spec.wide_indices;
  }
  std::vector<std::uint32_t> storage;
  const std::span<const std::uint32_t> order = chain_order_view(spec, storage, check);
  return std::vector<std::uint64_t>(order.begin(), order.end());
}

}  // namespace memtopo
