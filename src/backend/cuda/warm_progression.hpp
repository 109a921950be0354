#pragma once
// Which chases may warm without following their chain (pure host logic, no CUDA).
//
// A chain whose visiting order is an arithmetic progression of words (sequential chains, and
// explicit ones such as l2.size's placements, which start further into the array) visits the
// same words in the same order whether the warm passes follow the chain or compute the next
// word: the kernel then issues the warm loads back to back, many in flight, instead of one per
// load latency. The caches see the same lines in the same order (the kernel's loads are
// volatile and issued in program order), so the state the timed loads meet is the same; what
// changes is the time: an H200's l2.size chases over 23-27 MiB spent ~46 of their ~50 ms in
// the warm pass, one L2 latency per load.
#include <cstdint>
#include <optional>

#include "backend/experiment.hpp"

namespace memtopo {

struct WarmProgression {
  std::uint32_t first_word = 0;      // the word of position 0 in visiting order
  std::uint32_t step_words = 0;      // between consecutive positions
  std::uint32_t elements = 0;        // positions on the chain (it wraps to position 0)
  std::uint32_t start_position = 0;  // the position of spec.start_index
};

// The progression of `spec`'s chain when its warm passes may be computed: asked for
// (ChaseSpec::stream_warm), one chaser on the cg or cv path, 32-bit
// indices, no private segments, at least one warm load, and a visiting order of equally spaced
// ascending words. nullopt otherwise (the kernel then follows the chain).
std::optional<WarmProgression> warm_progression(const ChaseSpec& spec);

}  // namespace memtopo
