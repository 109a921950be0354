#pragma once
// The one way probes build a ChaseSpec: make_chase(path, footprint, stride) and then only what
// differs from the defaults, named, e.g.
//
//   const ChaseSpec spec = make_chase(LoadPath::cg, footprint, 32)
//                              .random(ctx.seed).timed_loads(4096).on_sm(sm);
//
// Defaults (those of ChaseSpec): sequential order, one warm pass, no timed loads, one chaser,
// any SM, no flush, no eviction sweep, no shared reservation.
#include <cstdint>
#include <optional>
#include <vector>

#include "backend/experiment.hpp"

namespace memtopo {

class ChaseBuilder {
 public:
  ChaseBuilder(LoadPath path, std::uint64_t footprint_bytes, std::uint32_t stride_bytes);

  ChaseBuilder& sequential();
  ChaseBuilder& random(std::uint64_t seed);  // one seeded cycle through every element
  // Visits `indices` (word indices) in this order and starts at the first of them.
  ChaseBuilder& visiting(std::vector<std::uint32_t> indices);
  ChaseBuilder& start_at(std::uint32_t word_index);
  // The same sequential chain `offset_bytes` further into its array (other memory): the array
  // grows by the offset, and its elements from there on are visited in address order. No-op
  // for an offset of 0.
  ChaseBuilder& placed_at(std::uint64_t offset_bytes);
  ChaseBuilder& warm_passes(std::uint32_t passes);
  ChaseBuilder& timed_loads(std::uint32_t loads);
  ChaseBuilder& chasers(std::uint32_t count, ChaserSchedule schedule);
  ChaseBuilder& private_segments();  // chaser k walks segment k of the footprint only
  ChaseBuilder& on_sm(std::optional<std::uint32_t> sm);
  ChaseBuilder& flush_device_caches();
  ChaseBuilder& evicting(const EvictionSweep& sweep);
  ChaseBuilder& reserving_shared(std::uint32_t bytes);
  // A wide chain (ChaseSpec::wide_indices): 64-bit elements at these word indices (even), in
  // this order, from the first; for footprints past 16 GiB. ca and cg only.
  ChaseBuilder& visiting_wide(std::vector<std::uint64_t> indices);
  // Tells the backend that the next chase needs arrays as large (ChaseSpec::keep_arrays).
  ChaseBuilder& keeping_arrays(bool keep = true);
  // Lets the backend issue the warm passes without following the chain where its order is a
  // progression (ChaseSpec::stream_warm).
  ChaseBuilder& warming_as_a_stream(bool stream = true);

  const ChaseSpec& spec() const& { return spec_; }
  ChaseSpec spec() && { return std::move(spec_); }
  operator ChaseSpec() const& { return spec_; }  // NOLINT: a builder converts to what it builds
  operator ChaseSpec() && { return std::move(spec_); }  // NOLINT

 private:
  ChaseSpec spec_;
};

inline ChaseBuilder make_chase(LoadPath path, std::uint64_t footprint_bytes,
                               std::uint32_t stride_bytes) {
  return ChaseBuilder(path, footprint_bytes, stride_bytes);
}

}  // namespace memtopo
