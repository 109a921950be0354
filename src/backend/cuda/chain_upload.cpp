#include "backend/cuda/chain_upload.hpp"

#include <algorithm>
#include <stdexcept>

#include "backend/chain.hpp"
#include "backend/cuda/chain_writer.hpp"
#include "backend/cuda/chase_kernels.hpp"

namespace memtopo {

std::uint32_t array_words(const ChaseSpec& chain_spec) {
  return static_cast<std::uint32_t>(chain_spec.footprint_bytes / 4);
}

DeviceChain put_chain(const ChaseSpec& chain_spec, DeviceBuffer<std::uint32_t>& buffer,
                      std::uint64_t offset, LinkScratch& link_scratch,
                      std::vector<TextureObject>& textures, SpecCheck check) {
  if (chain_spec.path == LoadPath::constant) {
    upload_constant_chain(build_chain(chain_spec, check));  // at most 64 KiB
    return {};
  }
  if (is_wide(chain_spec)) {
    write_wide_chain(chain_spec, buffer, offset, link_scratch.wide, kScatterChunkLinks, check);
    return {buffer.data() + offset, 0};  // ca or cg: no texture
  }
  write_chain(chain_spec, buffer, offset, link_scratch.narrow, kScatterChunkLinks, check);
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
  const std::vector<std::uint64_t>& chain = spec.wide_indices;
  const auto refuse = [&](std::size_t i) {
    throw std::runtime_error("wide chase " + std::to_string(spec_index) + " (path " +
                             std::string(to_string(spec.path)) + "): timed load " +
                             std::to_string(i) + " read word " + std::to_string(recorded[i]) +
                             ", not the chain element after the previous one: the device did "
                             "not follow the chain the host built");
  };
  // Each chaser starts somewhere on the chain and then reads it in order: its first word is
  // looked up, the rest compared with the chain from there (a hash lookup per timed load was
  // 95 ms of an H200 discovery's TLB row).
  std::size_t at = 0;
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const bool chaser_start = spec.timed_loads == 0 || i % spec.timed_loads == 0;
    if (chaser_start) {
      const auto found = std::find(chain.begin(), chain.end(), recorded[i]);
      if (found == chain.end()) refuse(i);
      at = static_cast<std::size_t>(found - chain.begin());
    } else {
      at = at + 1 == chain.size() ? 0 : at + 1;
      if (recorded[i] != chain[at]) refuse(i);
    }
  }
}

}  // namespace memtopo
