#include "backend/cuda/chain_upload.hpp"

#include <stdexcept>
#include <unordered_map>

#include "backend/chain.hpp"
#include "backend/cuda/chain_writer.hpp"
#include "backend/cuda/chase_kernels.hpp"

namespace memtopo {

std::uint32_t array_words(const ChaseSpec& chain_spec) {
  return static_cast<std::uint32_t>(chain_spec.footprint_bytes / 4);
}

DeviceChain put_chain(const ChaseSpec& chain_spec, DeviceBuffer<std::uint32_t>& buffer,
                      std::uint64_t offset, LinkScratch& link_scratch,
                      std::vector<TextureObject>& textures) {
  if (chain_spec.path == LoadPath::constant) {
    upload_constant_chain(build_chain(chain_spec));  // at most 64 KiB
    return {};
  }
  if (is_wide(chain_spec)) {
    write_wide_chain(chain_spec, buffer, offset, link_scratch.wide);
    return {buffer.data() + offset, 0};  // ca or cg: no texture
  }
  write_chain(chain_spec, buffer, offset, link_scratch.narrow);
  DeviceChain chain{buffer.data() + offset, 0};
  if (chain_spec.path == LoadPath::tex) {
    textures.emplace_back(chain.words, array_words(chain_spec));
    chain.texture = textures.back().handle();
  }
  return chain;
}

void describe_sweep(const ChaseSpec& spec, const DeviceChain& sweep, ChaseJob& job) {
  const ChaseSpec sweep_spec = eviction_chain_spec(spec);
  job.sweep_path = static_cast<std::uint32_t>(sweep_spec.path);
  job.sweep_words = array_words(sweep_spec);
  job.sweep_chain = sweep.words;
  job.sweep_texture = sweep.texture;
  job.sweep_loads = std::uint64_t{spec.eviction->passes} * chain_length(sweep_spec);
}

std::string describe_stray(const ChaseSpec& spec, std::size_t spec_index,
                           const ChaseOutcome& outcome, const ChaseJob& job,
                           std::uint64_t array_words) {
  const std::string chase =
      "chase " + std::to_string(spec_index) + " (path " + std::string(to_string(spec.path)) + ")";
  const std::string loaded = " loaded index " + std::to_string(outcome.stray_index) +
                             (is_wide(spec) ? " (its low 32 bits)" : "");
  const std::string verdict = " words: the device did not follow the chain the host built";
  switch (outcome.status) {
    case kChaseLeftChain:
      return chase + loaded + ", outside its array of " + std::to_string(array_words) + verdict;
    case kChaseSweepLeftChain:
      return "the eviction sweep (path " + std::string(to_string(spec.eviction->path)) + ") of " +
             chase + loaded + ", outside the sweep's array of " + std::to_string(job.sweep_words) +
             verdict;
    case kChaseBadSweepPath:
      return chase + ": the kernel cannot sweep on load path value " +
             std::to_string(outcome.stray_index) + " (internal error)";
    default:
      return chase + ": unknown outcome status " + std::to_string(outcome.status) +
             " (internal error)";
  }
}

void check_followed_wide_chain(const ChaseSpec& spec, std::size_t spec_index,
                               const std::vector<std::uint64_t>& recorded) {
  std::unordered_map<std::uint64_t, std::uint64_t> next;
  next.reserve(spec.wide_indices.size());
  for (std::size_t k = 0; k < spec.wide_indices.size(); ++k) {
    next[spec.wide_indices[k]] = spec.wide_indices[(k + 1) % spec.wide_indices.size()];
  }
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const bool chaser_start = spec.timed_loads == 0 || i % spec.timed_loads == 0;
    const auto on_chain = next.find(recorded[i]);
    const bool followed =
        on_chain != next.end() && (chaser_start || next.at(recorded[i - 1]) == recorded[i]);
    if (!followed) {
      throw std::runtime_error("wide chase " + std::to_string(spec_index) + " (path " +
                               std::string(to_string(spec.path)) + "): timed load " +
                               std::to_string(i) + " read word " + std::to_string(recorded[i]) +
                               ", not the chain element after the previous one: the device did "
                               "not follow the chain the host built");
    }
  }
}

}  // namespace memtopo
