#include "backend/warp_access.hpp"

#include <algorithm>
#include <string>

#include "backend/backend.hpp"

namespace memtopo {

std::uint64_t area_bytes(const WarpAccessSpec& spec) {
  const std::uint32_t largest =
      *std::max_element(spec.lane_offsets.begin(), spec.lane_offsets.end());
  return std::uint64_t{largest} + spec.word_bytes;
}

void validate(const WarpAccessSpec& spec) {
  const auto fail = [](const std::string& what) {
    throw ExperimentError("warp access spec: " + what);
  };
  if (std::find(std::begin(kWarpWordSizes), std::end(kWarpWordSizes), spec.word_bytes) ==
      std::end(kWarpWordSizes)) {
    fail("word_bytes must be 4, 8 or 16, got " + std::to_string(spec.word_bytes));
  }
  for (std::uint32_t lane = 0; lane < kWarpLanes; ++lane) {
    if (spec.lane_offsets[lane] % spec.word_bytes != 0) {
      fail("lane " + std::to_string(lane) + "'s offset " + std::to_string(spec.lane_offsets[lane]) +
           " is not a multiple of the word size " + std::to_string(spec.word_bytes));
    }
  }
  if (spec.timed_accesses == 0) fail("no timed access");
}

std::uint64_t accesses_of(const WarpAccessSpec& spec) {
  return std::uint64_t{spec.warm_accesses} + spec.timed_accesses;
}

}  // namespace memtopo
