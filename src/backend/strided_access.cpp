#include "backend/strided_access.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "backend/backend.hpp"

namespace memtopo {

std::string_view to_string(AccessSpace space) {
  switch (space) {
    case AccessSpace::ca:
      return "ca";
    case AccessSpace::cg:
      return "cg";
    case AccessSpace::nc:
      return "nc";
    case AccessSpace::tex:
      return "tex";
    case AccessSpace::constant:
      return "const";
    case AccessSpace::shared:
      return "shared";
    case AccessSpace::local:
      return "local";
  }
  return "ca";
}

std::optional<AccessSpace> parse_access_space(std::string_view name) {
  for (AccessSpace space : kAllAccessSpaces) {
    if (to_string(space) == name) return space;
  }
  return std::nullopt;
}

LoadPath load_path_of(AccessSpace space) {
  switch (space) {
    case AccessSpace::ca:
    case AccessSpace::local:
      return LoadPath::ca;
    case AccessSpace::cg:
      return LoadPath::cg;
    case AccessSpace::nc:
      return LoadPath::nc;
    case AccessSpace::tex:
      return LoadPath::tex;
    case AccessSpace::constant:
      return LoadPath::constant;
    case AccessSpace::shared:
      return LoadPath::shared;
  }
  return LoadPath::ca;
}

std::uint64_t request_span_bytes(const StridedAccessSpec& spec) {
  const std::uint64_t reach =
      std::uint64_t{kWarpLanes - 1} * spec.stride_elements * spec.element_bytes +
      spec.element_bytes + spec.start_offset_bytes;
  return (reach + kRequestAlignmentBytes - 1) / kRequestAlignmentBytes * kRequestAlignmentBytes;
}

std::uint64_t walked_footprint_bytes(const StridedAccessSpec& spec) {
  const std::uint64_t span = request_span_bytes(spec);
  return std::max<std::uint64_t>(1, spec.footprint_bytes / span) * span;
}

std::array<std::uint64_t, kWarpLanes> lane_offsets(const StridedAccessSpec& spec,
                                                   std::uint64_t request) {
  const std::uint64_t span = request_span_bytes(spec);
  const std::uint64_t requests = walked_footprint_bytes(spec) / span;
  const std::uint64_t base = request % requests * span + spec.start_offset_bytes;
  std::array<std::uint64_t, kWarpLanes> offsets{};
  for (std::uint32_t lane = 0; lane < kWarpLanes; ++lane) {
    offsets[lane] = base + std::uint64_t{lane} * spec.stride_elements * spec.element_bytes;
  }
  return offsets;
}

std::vector<std::uint64_t> interleaved_local_words(const StridedAccessSpec& spec,
                                                   std::uint64_t request) {
  const auto offsets = lane_offsets(spec, request);
  std::vector<std::uint64_t> words;
  for (std::uint32_t lane = 0; lane < kWarpLanes; ++lane) {
    for (std::uint32_t byte = 0; byte < spec.element_bytes; byte += kLocalWordBytes) {
      const std::uint64_t word = (offsets[lane] + byte) / kLocalWordBytes;
      words.push_back(word * kWarpLanes * kLocalWordBytes + std::uint64_t{lane} * kLocalWordBytes);
    }
  }
  return words;
}

std::uint32_t units_touched(std::span<const std::uint64_t> offsets, std::uint32_t access_bytes,
                            std::uint32_t unit_bytes) {
  std::set<std::uint64_t> units;
  for (std::uint64_t offset : offsets) {
    for (std::uint64_t unit = offset / unit_bytes; unit <= (offset + access_bytes - 1) / unit_bytes;
         ++unit) {
      units.insert(unit);
    }
  }
  return static_cast<std::uint32_t>(units.size());
}

void validate(const StridedAccessSpec& spec) {
  const auto fail = [](const std::string& what) {
    throw ExperimentError("strided access spec: " + what);
  };
  const auto* sizes_end = std::end(kStridedElementBytes);
  if (std::find(std::begin(kStridedElementBytes), sizes_end, spec.element_bytes) == sizes_end) {
    fail("element_bytes must be 4, 8 or 16, not " + std::to_string(spec.element_bytes));
  }
  if (spec.start_offset_bytes % spec.element_bytes != 0 ||
      spec.start_offset_bytes >= kRequestAlignmentBytes) {
    fail("start_offset_bytes must be a multiple of the element below " +
         std::to_string(kRequestAlignmentBytes) + ", not " +
         std::to_string(spec.start_offset_bytes));
  }
  if (spec.footprint_bytes < request_span_bytes(spec)) {
    fail("a footprint of " + std::to_string(spec.footprint_bytes) + " bytes holds no request of " +
         std::to_string(request_span_bytes(spec)));
  }
  if (spec.space == AccessSpace::constant && spec.footprint_bytes > kConstantBankBytes) {
    fail("a constant footprint of " + std::to_string(spec.footprint_bytes) +
         " bytes exceeds the constant bank's " + std::to_string(kConstantBankBytes));
  }
  if (spec.space == AccessSpace::local &&
      spec.footprint_bytes > std::uint64_t{kLocalArrayElements} * spec.element_bytes) {
    fail("a local footprint of " + std::to_string(spec.footprint_bytes) +
         " bytes exceeds each thread's array of " + std::to_string(kLocalArrayElements) +
         " elements");
  }
  if (spec.threads_per_block == 0 || spec.threads_per_block % kWarpLanes != 0) {
    fail("threads_per_block must be a positive multiple of 32");
  }
  if (spec.timed_launches == 0 && spec.latency_requests == 0) {
    fail("nothing to measure: no timed launch and no latency request");
  }
  if (spec.timed_launches > 0 && (spec.blocks_per_sm == 0 || spec.requests_per_warp == 0)) {
    fail("a throughput launch needs blocks and requests");
  }
}

}  // namespace memtopo
