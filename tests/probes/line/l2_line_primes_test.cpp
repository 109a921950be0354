// l2.line on an L2 whose set count the first prime of the strides divides (896 = 7 x 128 sets;
// a B200's 126 MiB of 2 KiB sets is 7 x 9216): every stride 7 x unit reaches a seventh of the
// sets, no unit holds 3/4 of 7 x the size, and the ladder of the next prime (11) finds the line,
// as the SM-local line probe does (tests/probes/line/line_test.cpp, line-7x-sets).
#include <gtest/gtest.h>

#include <string>

#include "support/probe_harness.hpp"

namespace memtopo::testing {
namespace {

TEST(L2LinePrimes, ASetCountTheFirstPrimeDividesTakesTheNextPrime) {
  const std::string path = "tests/probes/sims/l2-7x-sets.json";
  const SimTruth truth = read_truth(path);
  const ProbeRun run = run_on_sim(path, {"l2.size", "l2.sector", "l2.line"});
  const Property& line = property(run, "l2", "line");
  ASSERT_TRUE(line.value.is_number()) << line.note;
  EXPECT_FALSE(line.inconclusive) << line.note;
  EXPECT_EQ(line.value.get<double>(), truth.cache("L2").at("line_bytes").get<double>());
  EXPECT_GE(*line.confidence, 0.5);
  EXPECT_EQ(line.evidence.at("prime"), 11);
  ASSERT_TRUE(line.evidence.contains("primes_tried_before"));
  EXPECT_EQ(line.evidence.at("primes_tried_before").at(0).at("prime"), 7);
  EXPECT_NE(line.method.find("strides 11 x unit"), std::string::npos) << line.method;
}

}  // namespace
}  // namespace memtopo::testing
