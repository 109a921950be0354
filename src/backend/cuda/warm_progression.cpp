#include "backend/cuda/warm_progression.hpp"

#include <cstddef>

namespace memtopo {
namespace {

// Paths that do not allocate in the L1: the warm kernel's lines must not depend on an L1 that
// the kernel boundary between it and the chase may drop.
bool path_past_the_l1(LoadPath path) { return path == LoadPath::cg || path == LoadPath::cv; }

// The explicit order as a progression, or nullopt where any gap differs.
std::optional<WarmProgression> explicit_progression(const ChaseSpec& spec) {
  const auto& words = spec.indices;
  if (words.size() < 2 || words[1] <= words[0]) return std::nullopt;
  const std::uint32_t step = words[1] - words[0];
  for (std::size_t k = 2; k < words.size(); ++k) {
    if (words[k] <= words[k - 1] || words[k] - words[k - 1] != step) return std::nullopt;
  }
  WarmProgression p;
  p.first_word = words.front();
  p.step_words = step;
  p.elements = static_cast<std::uint32_t>(words.size());
  return p;
}

}  // namespace

std::optional<WarmProgression> warm_progression(const ChaseSpec& spec) {
  if (!spec.stream_warm || !path_past_the_l1(spec.path) || is_wide(spec) || spec.chasers != 1 ||
      spec.private_segments || spec.warm_passes == 0) {
    return std::nullopt;
  }
  std::optional<WarmProgression> p;
  if (spec.order == ChaseOrder::sequential) {
    const std::uint64_t elements = chain_length(spec);
    if (elements < 2 || elements > UINT32_MAX) return std::nullopt;
    p = WarmProgression{0, spec.stride_bytes / 4, static_cast<std::uint32_t>(elements), 0};
  } else if (spec.order == ChaseOrder::explicit_indices) {
    p = explicit_progression(spec);
  }
  if (!p || p->step_words == 0 || spec.start_index < p->first_word ||
      (spec.start_index - p->first_word) % p->step_words != 0) {
    return std::nullopt;
  }
  const std::uint32_t position = (spec.start_index - p->first_word) / p->step_words;
  if (position >= p->elements) return std::nullopt;
  p->start_position = position;
  return p;
}

}  // namespace memtopo
