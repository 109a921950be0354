#include "backend/cuda/l2_first_touch_runner.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/clock_window.hpp"
#include "backend/cuda/l2_first_touch_kernels.hpp"

namespace memtopo {

L2FirstTouchResult L2FirstTouchRunner::run(const L2FirstTouchSpec& spec) {
  validate(spec);
  if (!std::binary_search(config_.sm_ids.begin(), config_.sm_ids.end(), spec.warmer_sm)) {
    throw ExperimentError("warmer SM " + std::to_string(spec.warmer_sm) +
                          " is not among the SMs that run blocks");
  }
  const std::uint32_t blocks = config_.sm_count;
  if (lines_.size() == 0 || spec.lines_per_reader > lines_per_region_ ||
      next_round_ == kFirstTouchRounds) {
    const std::uint32_t lines = std::max(spec.lines_per_reader, lines_per_region_);
    DeviceBuffer<char> fresh(std::uint64_t{blocks} * lines * kFirstTouchLineSpacing);
    lines_ = std::move(fresh);  // the old allocation is freed only now
    lines_per_region_ = lines;
    next_round_ = 0;
    // The first launch on a new allocation answers ~680 cycles everywhere on an H200 (the
    // memory's first use, whatever the TLB lines warmed): it primes round 0 and is discarded.
    launch_round(spec);
  }
  return launch_round(spec);
}

L2FirstTouchResult L2FirstTouchRunner::launch_round(const L2FirstTouchSpec& spec) {
  const std::uint32_t blocks = config_.sm_count;
  const std::uint32_t lines = spec.lines_per_reader;
  DeviceBuffer<std::uint32_t> sync(3), status(blocks), sm_of_block(blocks), order(blocks);
  DeviceBuffer<std::uint32_t> first(std::uint64_t{blocks} * lines);
  DeviceBuffer<std::uint32_t> second(std::uint64_t{blocks} * lines);
  DeviceBuffer<std::uint32_t> overhead(std::uint64_t{blocks} * kFirstTouchOverheadSamples);
  DeviceBuffer<std::uint64_t> window(4);
  sync.fill_zero();
  status.fill_zero();
  window.fill_zero();
  FirstTouchLaunch launch;
  launch.base = lines_.data();
  launch.region_bytes = std::uint64_t{lines_per_region_} * kFirstTouchLineSpacing;
  launch.lines = lines;
  launch.round = next_round_++;
  // Which SM writes does not matter on an H100 (the readers' split follows the warmer); any SM
  // but the warmer.
  launch.writer_sm = spec.warmer_sm == config_.sm_ids.front() ? config_.sm_ids.back()
                                                             : config_.sm_ids.front();
  launch.warmer_sm = spec.warmer_sm;
  launch.zero = 0;
  launch.sync = sync.data();
  launch.status = status.data();
  launch.sm_of_block = sm_of_block.data();
  launch.order_of_block = order.data();
  launch.first = first.data();
  launch.second = second.data();
  launch.overhead = overhead.data();
  launch.clock_window = window.data();
  launch_first_touch(launch, blocks,
                     first_touch_dynamic_shared_bytes(config_.shared_per_sm,
                                                      config_.max_dynamic_shared));

  std::vector<std::uint32_t> states(blocks), sms(blocks), turns(blocks);
  std::vector<std::uint32_t> firsts(first.size()), seconds(second.size()),
      overheads(overhead.size());
  std::vector<std::uint64_t> clock(4);
  status.download(states);
  sm_of_block.download(sms);
  order.download(turns);
  first.download(firsts);
  second.download(seconds);
  overhead.download(overheads);
  window.download(clock);
  for (std::uint32_t b = 0; b < blocks; ++b) {
    if (states[b] != kFirstTouchDone) {
      throw ExperimentError("L2 first touch: the block on SM " + std::to_string(sms[b]) +
                            " waited more than a second (status " + std::to_string(states[b]) +
                            "): not every block was resident, or the warmer SM ran none");
    }
  }
  L2FirstTouchResult result;
  result.warmer_sm = spec.warmer_sm;
  result.writer_sm = launch.writer_sm;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> readers;  // (turn, block)
  for (std::uint32_t b = 0; b < blocks; ++b) {
    if (turns[b] != UINT32_MAX) readers.emplace_back(turns[b], b);
  }
  if (readers.size() + 1 != blocks) {
    throw ExperimentError("L2 first touch: " + std::to_string(blocks - readers.size()) +
                          " blocks ran on the warmer SM " + std::to_string(spec.warmer_sm) +
                          " (expected one block per SM)");
  }
  std::sort(readers.begin(), readers.end());
  for (const auto& [turn, b] : readers) {
    L2ReaderTouches touches;
    touches.sm_id = sms[b];
    touches.first_cycles.assign(firsts.begin() + b * lines, firsts.begin() + (b + 1) * lines);
    touches.second_cycles.assign(seconds.begin() + b * lines, seconds.begin() + (b + 1) * lines);
    touches.overhead_cycles =
        median_cycles({overheads.begin() + b * kFirstTouchOverheadSamples,
                   overheads.begin() + (b + 1) * kFirstTouchOverheadSamples});
    result.readers.push_back(std::move(touches));
  }
  result.clock_khz = clock_khz_of(clock[1] - clock[0], clock[3] - clock[2]);
  return result;
}

}  // namespace memtopo
