#pragma once
// Runs the L2 first-touch experiment on a GPU. Keeps one allocation across calls and hands
// each call the next round of lines, none of which an earlier call touched; a new allocation
// (the old one still held while it is made, so that it cannot land on the same memory) after
// the last round.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/cuda/device_buffer.hpp"
#include "backend/l2_first_touch.hpp"

namespace memtopo {

struct FirstTouchRunnerConfig {
  std::uint32_t sm_count = 0;
  std::vector<std::uint32_t> sm_ids;  // sorted
  std::size_t shared_per_sm = 0;
  std::size_t max_dynamic_shared = 0;
};

class L2FirstTouchRunner {
 public:
  explicit L2FirstTouchRunner(FirstTouchRunnerConfig config) : config_(std::move(config)) {}
  L2FirstTouchResult run(const L2FirstTouchSpec& spec);

 private:
  // One launch on the next round of the current allocation.
  L2FirstTouchResult launch_round(const L2FirstTouchSpec& spec);

  FirstTouchRunnerConfig config_;
  DeviceBuffer<char> lines_;
  std::uint32_t lines_per_region_ = 0;
  std::uint32_t next_round_ = 0;
};

}  // namespace memtopo
