#include "geometry/geometry_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <sstream>

#include "analysis/xor_index.hpp"

namespace memtopo::testing {

GeometryTruth geometry_truth(const std::string& file, const std::string& cache) {
  const auto l1 = read_truth(file).cache(cache);
  const auto size = l1.at("size_bytes").get<std::uint64_t>();
  const auto line = l1.at("line_bytes").get<std::uint64_t>();
  GeometryTruth t;
  const auto& w = l1.at("ways");
  if (w.is_array()) {
    t.ways = w;
    t.sets = w.size();
  } else if (w.get<std::uint64_t>() == 0) {
    t.ways = size / line;
    t.sets = 1;
  } else {
    t.ways = w;
    t.sets = size / (line * w.get<std::uint64_t>());
  }
  const auto index = l1.value("set_index", nlohmann::json("modulo"));
  if (index.is_object() && index.contains("xor")) {
    t.set_bits = {{"xor", index.at("xor")}};
  } else if (index.is_object()) {
    t.set_bits = index.at("bits");
  } else if (t.sets == 1) {
    t.set_bits = nlohmann::json::array();
  } else if (w.is_array() || !std::has_single_bit(t.sets)) {
    t.set_bits = {{"modulo", t.sets}};
  } else {
    t.set_bits = nlohmann::json::array();
    for (int b = 0; b < std::countr_zero(t.sets); ++b)
      t.set_bits.push_back(std::countr_zero(line) + b);
  }
  const auto policy = l1.value("policy", nlohmann::json("lru"));
  t.policy = policy.is_object() ? "weighted" : policy.get<std::string>();
  return t;
}

namespace {

std::vector<std::uint64_t> masks_of(const nlohmann::json& functions) {
  std::vector<std::uint64_t> masks;
  for (const auto& bits : functions) {
    std::uint64_t mask = 0;
    for (const auto& b : bits) mask |= std::uint64_t{1} << b.get<unsigned>();
    masks.push_back(mask);
  }
  return masks;
}

}  // namespace

void expect_same_index_functions(const nlohmann::json& found, const nlohmann::json& truth) {
  ASSERT_TRUE(found.is_object() && found.contains("xor")) << found.dump();
  ASSERT_TRUE(truth.is_object() && truth.contains("xor")) << truth.dump();
  EXPECT_TRUE(same_span(masks_of(found.at("xor")), masks_of(truth.at("xor"))))
      << "found " << found.dump() << ", configured " << truth.dump();
}

void expect_every_check_agreed(const Property& finding) {
  ASSERT_TRUE(finding.evidence.contains("confidence_factors")) << finding.evidence.dump();
  for (const auto& factor : finding.evidence.at("confidence_factors")) {
    if (factor.at("rule") != "agreement") continue;
    std::istringstream inputs(factor.at("inputs").get<std::string>());
    std::size_t agreeing = 0, checks = 0;
    std::string of;
    inputs >> agreeing >> of >> checks;
    EXPECT_EQ(agreeing, checks) << factor.dump();
  }
}

std::vector<Trace> BatchSizeWatcher::run(std::span<const ChaseSpec> batch) {
  if (watching) largest = std::max(largest, batch.size());
  return CountingBackend::run(batch);
}

}  // namespace memtopo::testing
