// The host's check that a wide chase's timed loads followed the chain (host logic: runs without a
// GPU; here for the CUDA headers chain_upload.hpp needs).
#include "backend/cuda/chain_upload.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace memtopo {
namespace {

ChaseSpec wide_chain(std::vector<std::uint64_t> order, std::uint32_t timed_loads) {
  ChaseSpec spec;
  spec.path = LoadPath::cg;
  spec.footprint_bytes = 64ull << 30;
  spec.wide_indices = std::move(order);
  spec.timed_loads = timed_loads;
  return spec;
}

std::string refusal(const ChaseSpec& spec, const std::vector<std::uint64_t>& recorded) {
  try {
    check_followed_wide_chain(spec, 3, recorded);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(WideChainCheck, EveryChaserMayStartAnywhereOnTheChainAndWrapAround) {
  const ChaseSpec spec = wide_chain({40, 7, 1000000000000ull, 12}, 5);
  // Two chasers of 5 timed loads: one from the first element, one from the last (wrapping).
  EXPECT_EQ(refusal(spec, {40, 7, 1000000000000ull, 12, 40, 12, 40, 7, 1000000000000ull, 12}),
            "");
}

TEST(WideChainCheck, NamesTheFirstLoadOffTheChainOrOutOfOrder) {
  const ChaseSpec spec = wide_chain({40, 7, 99, 12}, 4);
  EXPECT_NE(refusal(spec, {40, 7, 12, 40}).find("timed load 2 read word 12"), std::string::npos);
  EXPECT_NE(refusal(spec, {40, 7, 99, 12, 5, 40, 7, 99}).find("timed load 4 read word 5"),
            std::string::npos);
  EXPECT_NE(refusal(spec, {40, 8, 99, 12}).find("wide chase 3 (path cg): timed load 1 read word 8"),
            std::string::npos);
}

}  // namespace
}  // namespace memtopo
