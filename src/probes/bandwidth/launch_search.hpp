#pragma once
// The search for the launch configuration that delivers a level's sustained peak: a coordinate
// search over blocks per SM x threads per block x vector width x unroll from a sensible start,
// moving along one dimension while the bandwidth improves by more than `min_gain`, and stopping
// when a whole round over the dimensions improves nothing (or the measurement budget is spent).
// Generic over the measurement, so that tests can search synthetic functions.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace memtopo {

struct LaunchConfig {
  std::uint32_t blocks_per_sm = 0;
  std::uint32_t threads_per_block = 0;
  std::uint32_t vector_bytes = 0;
  std::uint32_t unroll = 0;
  friend bool operator==(const LaunchConfig&, const LaunchConfig&) = default;
};

nlohmann::json to_json(const LaunchConfig& config);
// "4 x 256 threads, 16 B x 4"
std::string describe(const LaunchConfig& config);

// The values each dimension may take, ascending.
struct LaunchSpace {
  std::vector<std::uint32_t> blocks_per_sm;
  std::vector<std::uint32_t> threads_per_block;
  std::vector<std::uint32_t> vector_bytes;
  std::vector<std::uint32_t> unroll;
};

// Reads: every vector width a stream kernel has. Writes and copies: 16-byte vectors only.
LaunchSpace read_launch_space();
LaunchSpace store_launch_space();
// Where a search starts: the middle of the blocks and threads, the widest vector, the deepest
// unroll.
LaunchConfig default_start(const LaunchSpace& space);

// One measurement of the search: the bandwidth, or why the configuration could not run. (Not
// `SearchStep`: size_search.hpp has one, and two types of one name in one program broke
// std::vector<SearchStep> under ASan once a test instantiated both.)
struct LaunchStep {
  LaunchConfig config;
  std::optional<double> bytes_per_second;
  std::string not_run;
};

struct SearchResult {
  LaunchConfig best;
  double best_bytes_per_second = 0;
  std::vector<LaunchStep> steps;  // in the order measured
  bool budget_spent = false;      // stopped by max_measurements, not by convergence
  double min_gain = 0;            // the gain a move needed (SearchOptions)
};

struct SearchOptions {
  // A move must gain more than 0.3 %: above the launch-to-launch spread of a p50 of three 1 ms
  // launches on an idle H200 (0.1 % in the SM caches, 0.2 % in DRAM), below the steps between
  // neighbouring configurations near a peak (0.3-1 %: 125 -> 127.7 B/clk/SM in L1).
  double min_gain = 0.003;
  std::size_t max_measurements = 32;  // configurations launched at most (not-run ones are free)
};

// Measures one configuration: its bandwidth, or nullopt with `not_run` saying why it cannot
// run (it does not fit on an SM, no kernel exists for it).
using MeasureLaunch =
    std::function<std::optional<double>(const LaunchConfig&, std::string& not_run)>;

// Searches `space` from `start` (snapped to the space). Throws std::runtime_error when no
// configuration tried could run, naming the last reason.
SearchResult search_launch(const LaunchSpace& space, const LaunchConfig& start,
                           const MeasureLaunch& measure, const SearchOptions& options = {});

// Up to `count` configurations the search measured, distinct, fastest first by their search
// rate but with the search's best always first: the finalists that a probe measures again with
// longer launches. A move needs min_gain, so a configuration may have measured faster than the
// best without becoming it.
std::vector<LaunchConfig> finalists(const SearchResult& search, std::size_t count);

// The finalists' order by the rates of their final launches: the fastest (the first of equal
// ones), and the others within `min_gain` of it (rate x (1 + min_gain) >= the fastest's), which
// those launches cannot order either.
struct FinalistRanking {
  std::size_t fastest = 0;
  std::vector<std::size_t> ties;  // ascending
};
FinalistRanking rank_finalists(const std::vector<double>& rates, double min_gain);

nlohmann::json to_json(const SearchResult& result);

}  // namespace memtopo
