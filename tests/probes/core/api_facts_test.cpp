// add_api_facts: device facts on memory elements, marked source api, never over a measurement.
#include <gtest/gtest.h>

#include "probes/core/elements.hpp"
#include "probes/core/runner.hpp"

namespace memtopo {
namespace {

Topology with_facts(const std::string& backend) {
  Topology t;
  t.device.backend = backend;
  t.device.l2_bytes = 52428800;
  t.device.persisting_l2_max_bytes = 0;  // not reported: no property
  t.device.shared_per_sm_bytes = 233472;
  t.device.shared_per_block_bytes = 49152;
  t.device.shared_per_block_optin_bytes = 232448;
  t.device.global_memory_bytes = 85899345920ull;
  t.device.constant_bytes = 65536;
  return t;
}

void expect_api(const Topology& t, const std::string& element, const std::string& name,
                double value, const std::string& method) {
  SCOPED_TRACE(element + "." + name);
  const Element* e = t.find(element);
  ASSERT_NE(e, nullptr);
  const Property* p = e->find(name);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value.get<double>(), value);
  EXPECT_EQ(p->unit, "bytes");
  EXPECT_EQ(p->source, Source::api);
  EXPECT_EQ(p->method, method);
  EXPECT_FALSE(p->confidence.has_value());
}

TEST(ApiFacts, MemoryElementsGetTheirApiSizes) {
  Topology t = with_facts("cuda");
  add_api_facts(t);
  const std::string method = "cudaGetDeviceProperties";
  expect_api(t, "l2", "size", 52428800, method);
  expect_api(t, "shared", "size", 233472, method);
  expect_api(t, "shared", "size_per_block", 49152, method);
  expect_api(t, "shared", "size_per_block_optin", 232448, method);
  expect_api(t, "dram", "size", 85899345920.0, method);
  expect_api(t, "constant", "size", 65536, method);
  EXPECT_EQ(t.find("l2")->find("persisting_max"), nullptr);
  EXPECT_EQ(t.find("l1"), nullptr);  // no API fact describes L1

  EXPECT_EQ(t.find("l2")->kind, "cache");
  EXPECT_EQ(t.find("l2")->scope, "device");
  EXPECT_EQ(t.find("l2")->load_paths, (std::vector<std::string>{"cg", "ca"}));
  EXPECT_EQ(t.find("dram")->kind, "memory");
  EXPECT_EQ(t.find("shared")->kind, "scratchpad");
  EXPECT_EQ(t.find("shared")->scope, "sm");
  EXPECT_EQ(t.find("shared")->load_paths, (std::vector<std::string>{"shared"}));
}

TEST(ApiFacts, SimulatedDevicesSaySo) {
  Topology t = with_facts("sim");
  t.device.persisting_l2_max_bytes = 1 << 20;
  add_api_facts(t);
  expect_api(t, "l2", "persisting_max", 1 << 20, "simulated description");
  expect_api(t, "dram", "size", 85899345920.0, "simulated description");
}

TEST(ApiFacts, NeverReplaceAMeasurement) {
  Topology t = with_facts("cuda");
  Property measured;
  measured.name = "size";
  measured.value = 50331648;
  measured.unit = "bytes";
  measured.source = Source::measured;
  element_for(t, "l2").set(measured);
  add_api_facts(t);
  EXPECT_EQ(t.find("l2")->find("size")->source, Source::measured);
  EXPECT_EQ(t.find("l2")->find("size")->value.get<double>(), 50331648);
  // Calling it twice changes nothing.
  add_api_facts(t);
  EXPECT_EQ(t.find("shared")->properties.size(), 3u);
}

}  // namespace
}  // namespace memtopo
