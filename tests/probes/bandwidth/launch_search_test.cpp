// The launch search on synthetic bandwidth functions: it finds the peak of a function that
// rewards occupancy and bytes in flight, goes around configurations that cannot run, and stops
// within its measurement budget.
#include "probes/bandwidth/launch_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace memtopo {
namespace {

// Little's law with a peak: bytes in flight per SM over a latency, capped; more than 2048
// threads per SM do not fit.
std::optional<double> littles_law(const LaunchConfig& c, std::string& not_run, double latency,
                                  double peak) {
  if (c.blocks_per_sm * c.threads_per_block > 2048) {
    not_run = "too many threads";
    return std::nullopt;
  }
  const double in_flight =
      double(c.blocks_per_sm) * c.threads_per_block * c.vector_bytes * c.unroll;
  const double issue = 0.5 * 32 * c.vector_bytes;  // narrow vectors are issue-bound
  return std::min({peak, in_flight / latency, issue});
}

TEST(LaunchSearch, ClimbsToThePeakOfLittlesLaw) {
  const LaunchSpace space = read_launch_space();
  std::size_t calls = 0;
  const MeasureLaunch measure = [&](const LaunchConfig& c, std::string& why) {
    ++calls;
    return littles_law(c, why, 1000, 256);
  };
  const SearchResult result = search_launch(space, default_start(space), measure);
  EXPECT_DOUBLE_EQ(result.best_bytes_per_second, 256);
  EXPECT_EQ(result.best.vector_bytes, 16u);
  EXPECT_GE(double(result.best.blocks_per_sm) * result.best.threads_per_block *
                result.best.vector_bytes * result.best.unroll,
            256.0 * 1000);
  EXPECT_FALSE(result.budget_spent);
  EXPECT_EQ(calls, result.steps.size());  // every configuration measured once
  // About 16 to converge, a few more for the climbs from 4 and 8 B vectors.
  EXPECT_LE(result.steps.size(), 28u);
}

// The H200's L1 in miniature: at the same threads per SM, fewer and larger blocks are better,
// but a step along blocks alone or threads alone loses. Only the same-threads move finds it.
TEST(LaunchSearch, TradesBlocksForThreadsAtTheSameOccupancy) {
  const LaunchSpace space = read_launch_space();
  const MeasureLaunch measure = [](const LaunchConfig& c, std::string&) -> std::optional<double> {
    const double threads = double(c.blocks_per_sm) * c.threads_per_block;
    const double occupancy = threads == 1024 ? 1.0 : 0.9;
    return occupancy * (100 + 1.0 * c.threads_per_block / 64);  // larger blocks gain 1-2 %
  };
  const SearchResult result = search_launch(space, default_start(space), measure);
  EXPECT_EQ(result.best.blocks_per_sm, 1u);
  EXPECT_EQ(result.best.threads_per_block, 1024u);
}

// The H200's L1 as measured at 69d418c: from the deepest unroll the climb converges at 16 B x 8
// with 4 x 256 threads (126.7 B/clk/SM), and 8 B x 8 there is lower (126.0), so no move along
// the vector width gains; only a climb from 8 B x 8 finds 2 x 512 threads (127.7).
TEST(LaunchSearch, ClimbsAgainFromEachOtherVectorWidth) {
  const LaunchSpace space = read_launch_space();
  const MeasureLaunch measure = [](const LaunchConfig& c, std::string&) -> std::optional<double> {
    const bool deep = c.unroll == 8;
    const bool quarter = c.blocks_per_sm == 4 && c.threads_per_block == 256;
    const bool half = c.blocks_per_sm == 2 && c.threads_per_block == 512;
    if (c.vector_bytes == 16) return deep && quarter ? 126.7 : 120.0;
    if (c.vector_bytes == 8) return !deep ? 110.0 : half ? 127.7 : quarter ? 126.0 : 119.0;
    return 100.0;
  };
  const SearchResult result = search_launch(space, default_start(space), measure);
  EXPECT_EQ(result.best, (LaunchConfig{2, 512, 8, 8}));
  EXPECT_DOUBLE_EQ(result.best_bytes_per_second, 127.7);
  EXPECT_FALSE(result.budget_spent);
}

// A second climb that ends lower leaves the first optimum the result.
TEST(LaunchSearch, KeepsTheFirstOptimumWhenNoOtherWidthBeatsIt) {
  const LaunchSpace space = read_launch_space();
  const MeasureLaunch measure = [](const LaunchConfig& c, std::string& why) {
    return littles_law(c, why, 1000, 256);
  };
  const SearchResult result = search_launch(space, default_start(space), measure);
  EXPECT_EQ(result.best.vector_bytes, 16u);
  EXPECT_DOUBLE_EQ(result.best_bytes_per_second, 256);
}

TEST(LaunchSearch, StartsSmallerWhereTheStartCannotRun) {
  LaunchSpace space = read_launch_space();
  const MeasureLaunch measure = [](const LaunchConfig& c,
                                   std::string& why) -> std::optional<double> {
    if (c.blocks_per_sm * c.threads_per_block > 256) {
      why = "a small SM";
      return std::nullopt;
    }
    return double(c.blocks_per_sm * c.threads_per_block * c.unroll);
  };
  const SearchResult result = search_launch(space, default_start(space), measure);
  EXPECT_LE(result.best.blocks_per_sm * result.best.threads_per_block, 256u);
  EXPECT_EQ(result.best.unroll, 8u);
  EXPECT_FALSE(result.steps.front().bytes_per_second);
  EXPECT_EQ(result.steps.front().not_run, "a small SM");
}

TEST(LaunchSearch, StopsAtTheBudgetAndFailsWhenNothingRuns) {
  const LaunchSpace space = read_launch_space();
  // Strictly better with every step in every dimension: only the budget stops it.
  const MeasureLaunch growing = [](const LaunchConfig& c, std::string&) -> std::optional<double> {
    return double(c.blocks_per_sm) * c.threads_per_block * c.vector_bytes * c.unroll;
  };
  SearchOptions options;
  options.max_measurements = 5;
  const SearchResult result = search_launch(space, default_start(space), growing, options);
  EXPECT_TRUE(result.budget_spent);
  EXPECT_EQ(result.steps.size(), 5u);
  const MeasureLaunch nothing = [](const LaunchConfig&, std::string& why) -> std::optional<double> {
    why = "no kernel";
    return std::nullopt;
  };
  EXPECT_THROW(search_launch(space, default_start(space), nothing), std::runtime_error);
}

TEST(LaunchSearch, StoresUseSixteenByteVectorsOnly) {
  const LaunchSpace space = store_launch_space();
  ASSERT_EQ(space.vector_bytes, std::vector<std::uint32_t>{16});
  const MeasureLaunch measure = [](const LaunchConfig& c, std::string& why) {
    return littles_law(c, why, 500, 128);
  };
  const SearchResult result = search_launch(space, default_start(space), measure);
  EXPECT_EQ(result.best.vector_bytes, 16u);
  EXPECT_DOUBLE_EQ(result.best_bytes_per_second, 128);
  const nlohmann::json evidence = to_json(result);
  EXPECT_EQ(evidence.at("measurements").get<std::size_t>(), result.steps.size());
  EXPECT_EQ(evidence.at("best").at("vector_bytes"), 16);
}

TEST(LaunchSearch, FinalistsAreTheBestThenTheFastestOtherConfigurations) {
  SearchResult result;
  result.best = {2, 256, 16, 8};
  result.best_bytes_per_second = 4.687;
  const LaunchConfig a{1, 256, 16, 8}, b{1, 512, 16, 8}, c{4, 256, 16, 8}, lost{16, 64, 16, 8};
  // c measured faster than the best (by less than the gain a move needs), a twice.
  result.steps = {{c, 4.690, ""},       {result.best, 4.687, ""}, {a, 4.60, ""},
                  {lost, {}, "no fit"}, {b, 4.663, ""},           {a, 4.679, ""}};
  EXPECT_EQ(finalists(result, 3), (std::vector<LaunchConfig>{result.best, c, a}));
  EXPECT_EQ(finalists(result, 4), (std::vector<LaunchConfig>{result.best, c, a, b}));
  EXPECT_EQ(finalists(result, 9).size(), 4u);  // only configurations that ran, each once
  EXPECT_EQ(finalists(result, 1), (std::vector<LaunchConfig>{result.best}));
  EXPECT_TRUE(finalists(result, 0).empty());
}

// The H200's L1 at 7d0c541, run 2 (bytes per SM cycle of the final launches): the search's best
// 2 x 256 threads read 127.28, 2 x 512 read 127.65 and 1 x 512 127.60.
TEST(LaunchSearch, TheFastestFinalistWinsAndThoseWithinTheGainTie) {
  const FinalistRanking l1 = rank_finalists({127.28, 127.65, 127.60}, 0.003);
  EXPECT_EQ(l1.fastest, 1u);
  // 127.28 x 1.003 = 127.662 >= 127.65: at a gain of 0.3 % the search's best ties as well.
  EXPECT_EQ(l1.ties, (std::vector<std::size_t>{0, 2}));
  // 127.28 x 1.0029 = 127.649 < 127.65: at 0.29 % it no longer does.
  EXPECT_EQ(rank_finalists({127.28, 127.65, 127.60}, 0.0029).ties, std::vector<std::size_t>{2});
  // The first of equal rates is the fastest; the other ties.
  const FinalistRanking equal = rank_finalists({5, 5, 4}, 0.003);
  EXPECT_EQ(equal.fastest, 0u);
  EXPECT_EQ(equal.ties, std::vector<std::size_t>{1});
  EXPECT_TRUE(rank_finalists({8.5}, 0.003).ties.empty());
  EXPECT_THROW(rank_finalists({}, 0.003), std::invalid_argument);
}

}  // namespace
}  // namespace memtopo
