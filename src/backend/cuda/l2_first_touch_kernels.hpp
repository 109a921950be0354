#pragma once
// Host entry points of the L2 first-touch kernel (l2_first_touch_kernel.cu). Plain C++.
#include <cstddef>
#include <cstdint>

namespace memtopo {

// Where a round's lines lie: line i of block b's region at
// b * region_bytes + i * kFirstTouchLineSpacing + round * kFirstTouchRoundStride. The spacing is
// no power of two (17 x 256 B), so a reader's lines spread over the L2's slices; rounds step by
// 256 B, two 128 B lines, so that no round's line is the neighbour a fetch may bring along with
// another round's. The last 256 B of each spacing hold the line that warms the TLBs.
inline constexpr std::uint64_t kFirstTouchRoundStride = 256;
inline constexpr std::uint32_t kFirstTouchRounds = 16;
inline constexpr std::uint64_t kFirstTouchLineSpacing = (kFirstTouchRounds + 1) * kFirstTouchRoundStride;
inline constexpr std::uint64_t kFirstTouchWarmOffset = kFirstTouchRounds * kFirstTouchRoundStride;

// What a launch reports besides the cycles.
inline constexpr std::uint32_t kFirstTouchDone = 1;
inline constexpr std::uint32_t kFirstTouchTimedOut = 2;  // a block waited longer than a second
inline constexpr std::uint32_t kFirstTouchOverheadSamples = 8;

struct FirstTouchLaunch {
  const char* base = nullptr;
  std::uint64_t region_bytes = 0;
  std::uint32_t lines = 0;
  std::uint32_t round = 0;
  std::uint32_t writer_sm = 0;  // writes the lines in a launch of its own, before the warmer
  std::uint32_t warmer_sm = 0;
  std::uint64_t zero = 0;              // 0, unknown to the compiler: keeps loads dependent
  std::uint32_t* sync = nullptr;       // [0] flag: warmed; [1] tickets; [2] turn; zeroed
  std::uint32_t* status = nullptr;     // per block
  std::uint32_t* sm_of_block = nullptr;
  std::uint32_t* order_of_block = nullptr;  // a reader's turn; UINT32_MAX for the warmer
  std::uint32_t* first = nullptr;      // blocks x lines
  std::uint32_t* second = nullptr;     // blocks x lines
  std::uint32_t* overhead = nullptr;   // blocks x kFirstTouchOverheadSamples
  std::uint64_t* clock_window = nullptr;  // the warmer's clock64 and globaltimer, start and end
};

// Dynamic shared memory that keeps a second block off every SM (more than half of what an SM
// has), within what one block may take.
std::size_t first_touch_dynamic_shared_bytes(std::size_t shared_per_sm, std::size_t max_per_block);

// Two cooperative launches of `blocks` blocks (every block resident at once, one per SM): the
// writer's, then the warmer's and the readers'; waits for both to end.
void launch_first_touch(const FirstTouchLaunch& launch, std::uint32_t blocks,
                        std::size_t dynamic_shared_bytes);

}  // namespace memtopo
