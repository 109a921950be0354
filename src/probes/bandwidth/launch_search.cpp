#include "probes/bandwidth/launch_search.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>

namespace memtopo {
namespace {

constexpr std::size_t kDimensions = 4;
using Position = std::array<std::size_t, kDimensions>;  // an index into each dimension
constexpr std::size_t kVectorDimension = 2;             // blocks, threads, vector, unroll

const std::vector<std::uint32_t>& dimension(const LaunchSpace& space, std::size_t d) {
  switch (d) {
    case 0:
      return space.blocks_per_sm;
    case 1:
      return space.threads_per_block;
    case 2:
      return space.vector_bytes;
    default:
      return space.unroll;
  }
}

LaunchConfig config_at(const LaunchSpace& space, const Position& at) {
  return LaunchConfig{space.blocks_per_sm[at[0]], space.threads_per_block[at[1]],
                      space.vector_bytes[at[2]], space.unroll[at[3]]};
}

// The index of the value nearest to `value` (the first of two equally near).
std::size_t nearest_index(const std::vector<std::uint32_t>& values, std::uint32_t value) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < values.size(); ++i) {
    const auto distance = [&](std::size_t k) {
      return std::llabs(static_cast<long long>(values[k]) - static_cast<long long>(value));
    };
    if (distance(i) < distance(best)) best = i;
  }
  return best;
}

class CoordinateSearch {
 public:
  CoordinateSearch(const LaunchSpace& space, const MeasureLaunch& measure,
                   const SearchOptions& options)
      : space_(space), measure_(measure), options_(options) {}

  SearchResult run(const LaunchConfig& start) {
    Position at{};
    for (std::size_t d = 0; d < kDimensions; ++d) {
      at[d] = nearest_index(dimension(space_, d), dimension_value(start, d));
    }
    start_from(at);
    converge();
    climb_from_other_vector_widths();
    result_.budget_spent = spent();
    result_.min_gain = options_.min_gain;
    return result_;
  }

 private:
  static std::uint32_t dimension_value(const LaunchConfig& c, std::size_t d) {
    const std::uint32_t values[] = {c.blocks_per_sm, c.threads_per_block, c.vector_bytes, c.unroll};
    return values[d];
  }

  // Configurations that cannot run cost an occupancy query, not a launch: only launches count.
  bool spent() const { return launches_ >= options_.max_measurements; }

  std::optional<double> value_at(const Position& at) {
    if (const auto known = measured_.find(at); known != measured_.end()) return known->second;
    LaunchStep step{config_at(space_, at), std::nullopt, ""};
    step.bytes_per_second = measure_(step.config, step.not_run);
    if (step.bytes_per_second) ++launches_;
    result_.steps.push_back(step);
    measured_[at] = step.bytes_per_second;
    if (!step.bytes_per_second) last_reason_ = step.not_run;
    return step.bytes_per_second;
  }

  // The start, or where it cannot run, the smallest configurations along each dimension first.
  void start_from(Position at) {
    for (std::size_t d = 0; d <= kDimensions; ++d) {
      if (const auto value = value_at(at)) {
        best_at_ = at;
        result_.best = config_at(space_, at);
        result_.best_bytes_per_second = *value;
        return;
      }
      // Fewer blocks, threads, unroll; the same vector width.
      if (d < kDimensions && d != kVectorDimension) at[d] = 0;
    }
    throw std::runtime_error("no launch configuration could run: " + last_reason_);
  }

  // Climbs along every dimension (but the vector width where it is held) and the same-occupancy
  // move until no move gains.
  void converge(bool hold_vector_width = false) {
    bool improved = true;
    while (improved && !spent()) {
      improved = false;
      for (std::size_t d = 0; d < kDimensions && !spent(); ++d) {
        if (!(hold_vector_width && d == kVectorDimension)) improved |= climb(d);
      }
      if (!spent()) improved |= climb_same_threads();
    }
  }

  // A second climb from each other vector width at the first optimum's blocks, threads and
  // unroll, holding that width (a move back to the first width would end the climb where it
  // began); the higher of the optima is the result. A narrower vector pays off only with other
  // blocks and threads, which no single move from the first optimum reaches: on the H200's L1
  // 16 B x 8 converges at 4 x 256 threads (126.7 B/clk/SM), 8 B x 8 reaches 127.7 at 2 x 512.
  void climb_from_other_vector_widths() {
    const Position first = best_at_;
    for (std::size_t width = 0; width < space_.vector_bytes.size() && !spent(); ++width) {
      if (width == first[kVectorDimension]) continue;
      Position at = first;
      at[kVectorDimension] = width;
      const auto value = value_at(at);
      if (!value) continue;
      const Position best_so_far = best_at_;
      const LaunchConfig best_config = result_.best;
      const double best_rate = result_.best_bytes_per_second;
      best_at_ = at;
      result_.best = config_at(space_, at);
      result_.best_bytes_per_second = *value;
      converge(/*hold_vector_width=*/true);
      if (result_.best_bytes_per_second <= best_rate) {
        best_at_ = best_so_far;
        result_.best = best_config;
        result_.best_bytes_per_second = best_rate;
      }
    }
  }

  // Moves along dimension d, in whichever direction gains first, while it gains.
  bool climb(std::size_t d) { return climb_along({d}, {+1}); }

  // Fewer, larger blocks (or more, smaller ones) with the same threads per SM: one step along
  // blocks and the opposite step along threads. A climb along one axis at a time cannot make
  // this move, which changes no occupancy (on the H200's L1, 2 x 512 threads beat 4 x 256 by
  // 0.4 % at 8 B x 8, but neither 2 x 256 nor 4 x 512 beats 4 x 256). Both dimensions double
  // from one value to the next (read_launch_space), so the threads per SM stay the same.
  bool climb_same_threads() { return climb_along({0, 1}, {+1, -1}); }

  // Moves by `steps` along `dims` (and then by the opposite steps) while it gains.
  bool climb_along(std::vector<std::size_t> dims, std::vector<int> steps) {
    for (const int direction : {+1, -1}) {
      bool moved = false;
      Position at = best_at_;
      while (!spent()) {
        bool inside = true;
        for (std::size_t i = 0; i < dims.size(); ++i) {
          const long next = static_cast<long>(at[dims[i]]) + direction * steps[i];
          inside &= next >= 0 && next < static_cast<long>(dimension(space_, dims[i]).size());
        }
        if (!inside) break;
        for (std::size_t i = 0; i < dims.size(); ++i) {
          at[dims[i]] =
              static_cast<std::size_t>(static_cast<long>(at[dims[i]]) + direction * steps[i]);
        }
        const auto value = value_at(at);
        if (!value || *value <= result_.best_bytes_per_second * (1 + options_.min_gain)) break;
        best_at_ = at;
        result_.best = config_at(space_, at);
        result_.best_bytes_per_second = *value;
        moved = true;
      }
      if (moved) return true;
    }
    return false;
  }

  const LaunchSpace& space_;
  const MeasureLaunch& measure_;
  SearchOptions options_;
  SearchResult result_;
  Position best_at_{};
  std::map<Position, std::optional<double>> measured_;
  std::size_t launches_ = 0;  // configurations measured (not those that could not run)
  std::string last_reason_;
};

}  // namespace

nlohmann::json to_json(const LaunchConfig& config) {
  return {{"blocks_per_sm", config.blocks_per_sm},
          {"threads_per_block", config.threads_per_block},
          {"vector_bytes", config.vector_bytes},
          {"unroll", config.unroll}};
}

std::string describe(const LaunchConfig& config) {
  return std::to_string(config.blocks_per_sm) + " x " + std::to_string(config.threads_per_block) +
         " threads, " + std::to_string(config.vector_bytes) + " B x " +
         std::to_string(config.unroll);
}

LaunchSpace read_launch_space() {
  return {{1, 2, 4, 8, 16, 32}, {64, 128, 256, 512, 1024}, {4, 8, 16}, {1, 2, 4, 8}};
}

LaunchSpace store_launch_space() {
  return {{1, 2, 4, 8, 16, 32}, {64, 128, 256, 512, 1024}, {16}, {1, 2, 4, 8}};
}

LaunchConfig default_start(const LaunchSpace& space) {
  const auto middle = [](const std::vector<std::uint32_t>& values) {
    return values[(values.size() - 1) / 2];
  };
  // The deepest unroll: most loads in flight per warp, and the narrower vectors only pay off
  // there (8 B x 8 reaches 127.7 B/clk/SM in the H200's L1, 8 B x 2 only 75); a climb from a
  // shallow unroll stops at 16 B x 2 (125) before the vector width is worth changing.
  return {middle(space.blocks_per_sm), middle(space.threads_per_block), space.vector_bytes.back(),
          space.unroll.back()};
}

SearchResult search_launch(const LaunchSpace& space, const LaunchConfig& start,
                           const MeasureLaunch& measure, const SearchOptions& options) {
  for (std::size_t d = 0; d < kDimensions; ++d) {
    if (dimension(space, d).empty()) throw std::invalid_argument("search_launch: empty dimension");
  }
  return CoordinateSearch(space, measure, options).run(start);
}

std::vector<LaunchConfig> finalists(const SearchResult& search, std::size_t count) {
  std::vector<const LaunchStep*> ran;
  for (const LaunchStep& step : search.steps) {
    if (step.bytes_per_second && !(step.config == search.best)) ran.push_back(&step);
  }
  std::ranges::stable_sort(ran, std::greater<>{},
                           [](const LaunchStep* step) { return *step->bytes_per_second; });
  std::vector<LaunchConfig> out;
  if (count == 0) return out;
  out.push_back(search.best);
  for (const LaunchStep* step : ran) {
    if (out.size() == count) break;
    if (std::ranges::find(out, step->config) == out.end()) out.push_back(step->config);
  }
  return out;
}

FinalistRanking rank_finalists(const std::vector<double>& rates, double min_gain) {
  if (rates.empty()) throw std::invalid_argument("rank_finalists: no finalists");
  FinalistRanking ranking;
  for (std::size_t i = 1; i < rates.size(); ++i) {
    if (rates[i] > rates[ranking.fastest]) ranking.fastest = i;
  }
  for (std::size_t i = 0; i < rates.size(); ++i) {
    if (i != ranking.fastest && rates[i] * (1 + min_gain) >= rates[ranking.fastest]) {
      ranking.ties.push_back(i);
    }
  }
  return ranking;
}

nlohmann::json to_json(const SearchResult& result) {
  nlohmann::json steps = nlohmann::json::array();
  for (const LaunchStep& step : result.steps) {
    nlohmann::json row = to_json(step.config);
    if (step.bytes_per_second) {
      row["bytes_per_second"] = *step.bytes_per_second;
    } else {
      row["not_run"] = step.not_run;
    }
    steps.push_back(row);
  }
  return {{"best", to_json(result.best)},
          {"best_bytes_per_second", result.best_bytes_per_second},
          {"measurements", result.steps.size()},
          {"stopped", result.budget_spent ? "measurement budget spent" : "no move gained enough"},
          {"min_gain", result.min_gain},
          {"steps", steps}};
}

}  // namespace memtopo
