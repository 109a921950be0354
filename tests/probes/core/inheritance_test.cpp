// The runner's rule: no value surer than the findings its plan read (core/inheritance.hpp), on
// hand-made probes whose reads and writes are known.
#include "probes/core/inheritance.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>

#include "backend/sim/sim_backend.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"
#include "support/probe_harness.hpp"

namespace memtopo {
namespace {

class LambdaProbe : public Probe {
 public:
  explicit LambdaProbe(std::function<void(ProbeContext&)> body) : body_(std::move(body)) {}
  std::string id() const override { return "l1.test"; }
  std::string description() const override { return "a probe made for the test"; }
  void run(ProbeContext& ctx) override { body_(ctx); }

 private:
  std::function<void(ProbeContext&)> body_;
};

Property finding(const std::string& name, double value, std::optional<double> confidence,
                 Source source = Source::measured) {
  Property p;
  p.name = name;
  p.value = value;
  p.source = source;
  if (confidence) set_confidence(p, Confidence{share(*confidence, "made up")});
  return p;
}

void write(ProbeContext& ctx, const std::string& element, Property p) {
  element_for(ctx.topology, element).set(std::move(p));
}

const Property& read_back(const Topology& topology, const std::string& element,
                          const std::string& name) {
  const Property* p = topology.find(element)->find(name);
  if (!p) throw std::runtime_error("no " + element + "." + name);
  return *p;
}

struct Inheritance : ::testing::Test {
  std::unique_ptr<Backend> backend =
      make_sim_backend_from_file(testing::source_path("tests/sims/tiny.json"));
  Topology topology;
  ProbeContext ctx{.backend = *backend, .topology = topology};

  void SetUp() override {
    write(ctx, "l1", finding("size", 4096, 0.6));
    write(ctx, "l1", finding("line", 128, 0.9));
    write(ctx, "l2", finding("size", 1 << 20, std::nullopt, Source::api));
  }
  void run(std::function<void(ProbeContext&)> body) {
    LambdaProbe probe(std::move(body));
    run_inheriting(probe, ctx);
  }
};

TEST_F(Inheritance, EveryValueWrittenIsCappedByTheLeastSureFindingRead) {
  run([](ProbeContext& c) {
    ASSERT_TRUE(finding_count(c.topology, "l1", "size"));
    ASSERT_TRUE(finding_count(c.topology, "l1", "line"));
    write(c, "l1", finding("ways", 4, 0.9));
    write(c, "dram", finding("latency", 500, 1.0));  // another element: capped too
  });
  const Property& ways = read_back(topology, "l1", "ways");
  EXPECT_DOUBLE_EQ(*ways.confidence, 0.6);  // a cap: min(0.9, 0.6), not 0.9 x 0.6
  const auto& last = ways.evidence["confidence_factors"].back();
  EXPECT_EQ(last["rule"], "inherited");
  EXPECT_DOUBLE_EQ(last["value"].get<double>(), 0.6 / 0.9);
  EXPECT_NE(last["inputs"].get<std::string>().find("that of l1.size, the least sure"),
            std::string::npos)
      << last.dump();
  EXPECT_DOUBLE_EQ(*read_back(topology, "dram", "latency").confidence, 0.6);
  // What it read is left as it was.
  EXPECT_DOUBLE_EQ(*read_back(topology, "l1", "size").confidence, 0.6);
}

Property lower_bound(const std::string& name, double value) {
  Property p = finding(name, value, std::nullopt);
  p.inconclusive = true;
  p.bound = Bound::lower;
  return p;
}

TEST_F(Inheritance, ApiFactsNullFindingsExistenceChecksAndOneSideOfABoundCapNothing) {
  Property unsure = finding("sector", 32, std::nullopt);
  unsure.inconclusive = true;
  unsure.value = nullptr;
  write(ctx, "l1", unsure);
  write(ctx, "tlb_l1", lower_bound("entries", 16));
  run([](ProbeContext& c) {
    ASSERT_TRUE(any_finding(c.topology, "l2", "size"));
    ASSERT_TRUE(any_finding(c.topology, "l1", "sector"));
    ASSERT_TRUE(finding_exists(c.topology, "tlb_l1", "entries"));
    ASSERT_TRUE(bound_finding(c.topology, "tlb_l1", "entries", Bound::lower));
    write(c, "l1", finding("policy", 1, 0.95));
  });
  const Property& policy = read_back(topology, "l1", "policy");
  EXPECT_DOUBLE_EQ(*policy.confidence, 0.95);
  EXPECT_EQ(policy.evidence["confidence_factors"].size(), 1u);
}

TEST_F(Inheritance, ABoundTakenAsTheValueIsAtMostEvenOdds) {
  write(ctx, "tlb_l1", lower_bound("entries", 16));
  run([](ProbeContext& c) {
    ASSERT_TRUE(any_finding(c.topology, "tlb_l1", "entries"));
    write(c, "dram", finding("latency_patterns", 1, 0.95));
  });
  const Property& patterns = read_back(topology, "dram", "latency_patterns");
  EXPECT_DOUBLE_EQ(*patterns.confidence, kBoundReadAsValue);
  const std::string inputs = patterns.evidence["confidence_factors"].back()["inputs"];
  EXPECT_NE(inputs.find("tlb_l1.entries (a lower bound read as its value)"), std::string::npos)
      << inputs;
}

TEST_F(Inheritance, WhatTheProbeWroteItselfAndReadsBackIsNoInput) {
  run([](ProbeContext& c) {
    write(c, "l1", finding("ways", 4, 0.5));
    ASSERT_TRUE(finding_count(c.topology, "l1", "ways"));
    write(c, "l1", finding("sets", 8, 0.8));
  });
  EXPECT_DOUBLE_EQ(*read_back(topology, "l1", "sets").confidence, 0.8);
}

TEST_F(Inheritance, AValueOverwrittenFromWhatItWasIsCappedByIt) {
  run([](ProbeContext& c) {
    ASSERT_TRUE(finding_count(c.topology, "l1", "line"));
    write(c, "l1", finding("size", 4224, 0.95));  // refined from the line
  });
  EXPECT_DOUBLE_EQ(*read_back(topology, "l1", "size").confidence, 0.9);
}

TEST_F(Inheritance, AProbeThatThrowsIsCappedAllTheSame) {
  EXPECT_THROW(run([](ProbeContext& c) {
                 ASSERT_TRUE(finding_count(c.topology, "l1", "size"));
                 write(c, "l1", finding("ways", 4, 1.0));
                 throw Interrupted();
               }),
               Interrupted);
  EXPECT_DOUBLE_EQ(*read_back(topology, "l1", "ways").confidence, 0.6);
}

TEST_F(Inheritance, AValueLessSureThanItsInputsKeepsItsOwnConfidence) {
  run([](ProbeContext& c) {
    ASSERT_TRUE(finding_count(c.topology, "l1", "line"));
    write(c, "l1", finding("ways", 4, 0.3));
  });
  const Property& ways = read_back(topology, "l1", "ways");
  EXPECT_DOUBLE_EQ(*ways.confidence, 0.3);
  EXPECT_EQ(ways.evidence["confidence_factors"].size(), 1u);  // no factor of 1
}

TEST_F(Inheritance, AConclusiveValueWithoutAConfidenceGetsTheInheritedOne) {
  run([](ProbeContext& c) {
    ASSERT_TRUE(finding_count(c.topology, "l1", "size"));
    Property derived = finding("miss_penalty", 200, std::nullopt, Source::derived);
    write(c, "l1", derived);
  });
  const Property& penalty = read_back(topology, "l1", "miss_penalty");
  EXPECT_DOUBLE_EQ(*penalty.confidence, 0.6);
  EXPECT_EQ(penalty.evidence["confidence_factors"].size(), 1u);
}

TEST_F(Inheritance, AnotherTopologysReadsAreNotThisProbesInputs) {
  Topology other;
  element_for(other, "l1").set(finding("size", 1024, 0.1));
  run([&](ProbeContext& c) {
    ASSERT_TRUE(finding_count(other, "l1", "size"));
    write(c, "l1", finding("ways", 4, 0.9));
  });
  EXPECT_DOUBLE_EQ(*read_back(topology, "l1", "ways").confidence, 0.9);
}

}  // namespace
}  // namespace memtopo
