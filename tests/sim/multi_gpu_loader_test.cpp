// The "multi_gpu" key of a simulated description: read key by key, and every mistake named
// with its JSON path (the CLI turns a DescriptionError into exit code 4).
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.hpp"
#include "backend/sim/description_loader.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;

json multi_gpu_description() {
  return json::parse(R"({
    "name": "two", "sm_count": 2, "clock_khz": 1000000, "global_memory_bytes": 1073741824,
    "dram_latency": 300,
    "shared_memory": { "bytes_per_sm": 49152, "banks": 32, "bank_width_bytes": 4, "latency": 20 },
    "multi_gpu": {
      "gpus": 2, "relative_jitter": 0.01,
      "host": { "pcie_generation": 5, "pcie_width": 16, "latency_ns": 1200,
                "sm_read_bytes_per_second": 4e10, "sm_write_bytes_per_second": 4.5e10,
                "copy_read_bytes_per_second": 5e10, "copy_write_bytes_per_second": 5.1e10 },
      "links": [ { "between": [0, 1], "kind": "nvlink", "count": 18, "version": 4,
                   "latency_ns": 700, "sm_read_bytes_per_second": 3e11,
                   "sm_write_bytes_per_second": 3.2e11, "copy_read_bytes_per_second": 3.3e11,
                   "copy_write_bytes_per_second": 3.4e11 } ]
    }
  })");
}

void expect_multi_gpu_error(const json& description, const std::string& expected) {
  try {
    parse_description(description.dump(), "d.json");
    ADD_FAILURE() << "no DescriptionError; expected one containing: " << expected;
  } catch (const DescriptionError& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
  }
}

TEST(MultiGpuLoader, ReadsGpusHostAndLinks) {
  const SimDescription description = parse_description(multi_gpu_description().dump(), "d.json");
  ASSERT_TRUE(description.multi_gpu);
  const MultiGpuDescription& multi = *description.multi_gpu;
  EXPECT_EQ(multi.gpus, 2u);
  EXPECT_DOUBLE_EQ(multi.relative_jitter, 0.01);
  ASSERT_TRUE(multi.host);
  EXPECT_EQ(multi.host->pcie_generation, 5u);
  EXPECT_DOUBLE_EQ(multi.host->rates.latency_ns, 1200);
  ASSERT_EQ(multi.links.size(), 1u);
  const GpuLinkDescription* link = multi.link_between(1, 0);
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->kind, LinkKind::nvlink);
  EXPECT_EQ(link->nvlink_count, 18u);
  EXPECT_TRUE(link->peer_access);
  EXPECT_DOUBLE_EQ(link->rates.copy_write_bytes_per_second, 3.4e11);
}

TEST(MultiGpuLoader, WithoutTheKeyThereIsOneGpu) {
  json description = multi_gpu_description();
  description.erase("multi_gpu");
  EXPECT_FALSE(parse_description(description.dump(), "d.json").multi_gpu);
}

TEST(MultiGpuLoader, MistakesAreNamedWithTheirPath) {
  const auto with = [](const std::function<void(json&)>& change) {
    json description = multi_gpu_description();
    change(description);
    return description;
  };
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["gpu"] = 2; }),
                         "multi_gpu: unknown key \"gpu\"");
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["gpus"] = 0; }), "multi_gpu.gpus");
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["gpus"] = "2"; }), "multi_gpu.gpus");
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["relative_jitter"] = 0.9; }),
                         "multi_gpu.relative_jitter");
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["host"]["latency_ns"] = -1; }),
                         "multi_gpu.host.latency_ns");
  expect_multi_gpu_error(
      with([](json& d) { d["multi_gpu"]["host"].erase("copy_read_bytes_per_second"); }),
      "copy_read_bytes_per_second");
  expect_multi_gpu_error(with([](json& d) {
                           d["multi_gpu"]["links"][0]["between"] = {0, 2};
                         }),
                         "multi_gpu.links[0].between[1]");
  expect_multi_gpu_error(with([](json& d) {
                           d["multi_gpu"]["links"][0]["between"] = {1, 1};
                         }),
                         "two different GPUs");
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["links"][0]["kind"] = "infiniband"; }),
                         "multi_gpu.links[0].kind");
  expect_multi_gpu_error(
      with([](json& d) { d["multi_gpu"]["links"].push_back(d["multi_gpu"]["links"][0]); }),
      "already linked");
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["links"][0]["peer_access"] = false; }),
                         "without peer_access has no SM access");
  expect_multi_gpu_error(with([](json& d) {
                           auto& link = d["multi_gpu"]["links"][0];
                           link["kind"] = "pcie";
                         }),
                         "only an nvlink link");
  expect_multi_gpu_error(with([](json& d) { d["multi_gpu"]["links"][0]["bandwidth"] = 1; }),
                         "unknown key \"bandwidth\"");
  expect_multi_gpu_error(with([](json& d) {
                           d["multi_gpu"]["links"][0]["sm_read_shape_factors"] = {{"deep", 1.0}};
                         }),
                         "multi_gpu.links[0].sm_read_shape_factors: unknown key \"deep\"");
  expect_multi_gpu_error(with([](json& d) {
                           d["multi_gpu"]["links"][0]["sm_read_shape_factors"] = {
                               {"actor_memory", 0.2}};
                         }),
                         "multi_gpu.links[0].sm_read_shape_factors.actor_memory");
}

// Each SM read shape reads its factor of the link's SM read rate; one left out reads all of it.
TEST(MultiGpuLoader, ReadShapeFactorsDefaultToOne) {
  json description = multi_gpu_description();
  description["multi_gpu"]["links"][0]["sm_read_shape_factors"] = {{"actor_memory_deep", 1.004}};
  const SimDescription loaded = parse_description(description.dump(), "d.json");
  const LinkRates& rates = loaded.multi_gpu->link_between(0, 1)->rates;
  EXPECT_DOUBLE_EQ(rates.sm_read_shape_factors[0], 1.0);
  EXPECT_DOUBLE_EQ(rates.sm_read_shape_factors[1], 1.0);
  EXPECT_DOUBLE_EQ(rates.sm_read_shape_factors[2], 1.004);
}

}  // namespace
}  // namespace memtopo::sim
