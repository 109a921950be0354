#include "probes/core/chase_builder.hpp"

#include <utility>

namespace memtopo {

ChaseBuilder::ChaseBuilder(LoadPath path, std::uint64_t footprint_bytes,
                           std::uint32_t stride_bytes) {
  spec_.path = path;
  spec_.footprint_bytes = footprint_bytes;
  spec_.stride_bytes = stride_bytes;
}

ChaseBuilder& ChaseBuilder::sequential() {
  spec_.order = ChaseOrder::sequential;
  return *this;
}

ChaseBuilder& ChaseBuilder::random(std::uint64_t seed) {
  spec_.order = ChaseOrder::random_permutation;
  spec_.seed = seed;
  return *this;
}

ChaseBuilder& ChaseBuilder::visiting(std::vector<std::uint32_t> indices) {
  spec_.order = ChaseOrder::explicit_indices;
  spec_.indices = std::move(indices);
  if (!spec_.indices.empty()) spec_.start_index = spec_.indices.front();
  return *this;
}

ChaseBuilder& ChaseBuilder::placed_at(std::uint64_t offset_bytes) {
  if (offset_bytes == 0) return *this;
  const std::uint64_t chain_bytes = spec_.footprint_bytes;
  spec_.footprint_bytes = offset_bytes + chain_bytes;
  std::vector<std::uint32_t> words;
  for (std::uint64_t at = offset_bytes; at < spec_.footprint_bytes; at += spec_.stride_bytes)
    words.push_back(static_cast<std::uint32_t>(at / 4));
  return visiting(std::move(words));
}

ChaseBuilder& ChaseBuilder::start_at(std::uint32_t word_index) {
  spec_.start_index = word_index;
  return *this;
}

ChaseBuilder& ChaseBuilder::warm_passes(std::uint32_t passes) {
  spec_.warm_passes = passes;
  return *this;
}

ChaseBuilder& ChaseBuilder::timed_loads(std::uint32_t loads) {
  spec_.timed_loads = loads;
  return *this;
}

ChaseBuilder& ChaseBuilder::chasers(std::uint32_t count, ChaserSchedule schedule) {
  spec_.chasers = count;
  spec_.schedule = schedule;
  return *this;
}

ChaseBuilder& ChaseBuilder::private_segments() {
  spec_.private_segments = true;
  return *this;
}

ChaseBuilder& ChaseBuilder::on_sm(std::optional<std::uint32_t> sm) {
  spec_.sm = sm;
  return *this;
}

ChaseBuilder& ChaseBuilder::flush_device_caches() {
  spec_.flush_device_caches = true;
  return *this;
}

ChaseBuilder& ChaseBuilder::evicting(const EvictionSweep& sweep) {
  spec_.eviction = sweep;
  return *this;
}

ChaseBuilder& ChaseBuilder::reserving_shared(std::uint32_t bytes) {
  spec_.reserved_shared_bytes = bytes;
  return *this;
}

ChaseBuilder& ChaseBuilder::visiting_wide(std::vector<std::uint64_t> indices) {
  spec_.order = ChaseOrder::explicit_indices;
  spec_.indices.clear();
  spec_.wide_indices = std::move(indices);
  return *this;
}

ChaseBuilder& ChaseBuilder::keeping_arrays(bool keep) {
  spec_.keep_arrays = keep;
  return *this;
}

ChaseBuilder& ChaseBuilder::warming_as_a_stream(bool stream) {
  spec_.stream_warm = stream;
  return *this;
}

}  // namespace memtopo
