#pragma once
// The evidence that a latency sample's two modes are modes of the level it measures (near and
// far L2 partitions, memory behind them), not of the chase: how empty the gap between them is,
// and whether every part of the chase, cut in time order, shows each mode again. A clock step or
// a state change in the middle of a chase also gives two modes, each in only some parts (a cold
// row's first visits of its pages, which miss every TLB level, all come in its first round).
// docs/method.md, "Two modes".
#include <array>
#include <cstddef>
#include <span>
#include <string>

#include "analysis/staircase.hpp"

namespace memtopo {

struct ModeRepeatOptions {
  // Each part holds at least this many samples: a mode of 5 % still has a couple of dozen.
  std::size_t part_samples = 512;
  // A part shows a mode again when at least this share of its samples lie on the mode's side of
  // the threshold (the least share either split accepts for a mode) ...
  double min_share = 0.05;
  // ... and their p50 lies within this share of the whole mode's (the band every latency
  // confidence counts in, kDescribedBand).
  double value_band = 0.1;
};

struct LatencyModes {
  ModeSplit split;          // split_latency_modes of every sample
  double valley_ratio = 1;  // valley_ratio at split.threshold (two modes only)
  std::size_t parts = 0;    // parts the sample was cut into (0: fewer than two parts' worth)
  std::array<std::size_t, 2> parts_showing{0, 0};  // of the fast and the slow mode
  std::string parts_rule;                          // what a part had to show, in words
};

// split_latency_modes of `samples` (in the order they were timed) and, when it finds two modes,
// their evidence: the valley ratio at the threshold and, for each mode, the parts (consecutive,
// equal, at least part_samples each) that show it again as `options` says.
LatencyModes find_latency_modes(std::span<const double> samples,
                                const ModeRepeatOptions& options = {});

}  // namespace memtopo
