#include <gtest/gtest.h>

#include <cmath>

#include "model/json.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

using nlohmann::ordered_json;

std::string error_of_text(const std::string& text) {
  try {
    topology_from_json_text(text, "in.json");
  } catch (const TopologyJsonError& error) {
    return error.what();
  }
  return "no error";
}

std::string error_of(const ordered_json& document) {
  return error_of_text(document.dump());
}

ordered_json sample_document() {
  return topology_to_json(testing::make_sample_topology());
}

TEST(TopologyJson, RoundTripIsLossless) {
  Topology original = testing::make_sample_topology();
  ordered_json written = topology_to_json(original);
  Topology back = topology_from_json(written, "memory");
  EXPECT_EQ(topology_to_json(back), written);

  // Spot checks that the comparison above is not vacuous.
  ASSERT_EQ(back.elements.size(), 4u);
  const Property* latency = back.elements[0].find("latency");
  ASSERT_NE(latency, nullptr);
  ASSERT_TRUE(latency->spread && latency->raw && latency->seconds_value && latency->confidence);
  EXPECT_EQ(latency->spread->samples, 4096u);
  EXPECT_DOUBLE_EQ(latency->raw->p50, 45);
  EXPECT_EQ(latency->evidence["overhead_cycles"], 12);
  const Property* tex_size = back.find("tex")->find("size");
  EXPECT_TRUE(tex_size->inconclusive);
  EXPECT_EQ(tex_size->bound, Bound::lower);
  EXPECT_EQ(tex_size->note, original.find("tex")->find("size")->note);
  EXPECT_EQ(back.find("l2")->find("size")->source, Source::api);
  EXPECT_TRUE(back.find("tex")->find("line")->value.is_null());
  EXPECT_EQ(back.run.phases[0].sm_clock_khz_before, std::nullopt);
  EXPECT_EQ(back.run.phases[2].sm_clock_khz_after, 1200000.0);
  EXPECT_EQ(back.run.probes[3].reason, "the simulated device has no constant cache");
  EXPECT_EQ(back.device.shared_per_block_optin_bytes, 232448u);
  EXPECT_EQ(back.warnings, original.warnings);
  EXPECT_TRUE(back.run.simulated);
  // A latency of two modes keeps both, and the mix.
  const Property* dram = back.find("dram")->find("latency");
  ASSERT_EQ(dram->modes.size(), 2u);
  EXPECT_EQ(dram->modes[1].name, "far");
  EXPECT_DOUBLE_EQ(dram->modes[1].share, 0.56);
  EXPECT_NEAR(*dram->modes[1].confidence, 0.98 * 0.53, 1e-12);
  EXPECT_EQ(dram->modes[1].confidence_factors.size(), 2u);
  EXPECT_EQ(dram->modes[0].spread.samples, 1802u);
  ASSERT_TRUE(dram->mix.has_value());
  EXPECT_EQ(dram->mix->samples, 4096u);
}

TEST(TopologyJson, ModesHaveTheDocumentedShape) {
  ordered_json doc = sample_document();
  const ordered_json& latency = doc["elements"][3]["latency"];
  ASSERT_EQ(latency["modes"].size(), 2u);
  const ordered_json& far = latency["modes"][1];
  for (const char* key : {"name", "value", "share", "confidence", "spread"}) {
    EXPECT_TRUE(far.contains(key)) << key;
  }
  EXPECT_EQ(far["value"], 640);
  EXPECT_TRUE(latency["mix"].contains("p95"));
  EXPECT_FALSE(doc["elements"][0]["latency"].contains("modes")) << "one mode: no list";
}

TEST(TopologyJson, ARowModeOfAnEarlierRunReadsItsCycles) {
  // dram.latency_patterns rows before the modes' own form: cycles, p5/p95_cycles, samples.
  const Mode mode = mode_from_json(
      {{"cycles", 715}, {"share", 0.4}, {"p5_cycles", 700}, {"p95_cycles", 900}, {"samples", 90u}},
      "row");
  EXPECT_DOUBLE_EQ(mode.value, 715);
  EXPECT_DOUBLE_EQ(mode.spread.p95, 900);
  EXPECT_EQ(mode.spread.samples, 90u);
  EXPECT_THROW(mode_from_json({{"share", "half"}}, "row"), TopologyJsonError);
}

TEST(TopologyJson, TypicalValueWeighsTheModesByTheirShares) {
  const Topology topology = testing::make_sample_topology();
  const Property& dram = *topology.find("dram")->find("latency");
  EXPECT_NEAR(*typical_value(dram), 0.44 * 450 + 0.56 * 640, 1e-9);
  EXPECT_DOUBLE_EQ(*typical_value(*topology.find("l1")->find("latency")), 33);
  EXPECT_FALSE(typical_value(*topology.find("tex")->find("line")).has_value());
}

TEST(TopologyJson, HasTheDocumentedShape) {
  ordered_json doc = sample_document();
  EXPECT_EQ(doc.begin().key(), "schema_version") << "schema_version comes first";
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["tool"]["name"], "memtopo");
  EXPECT_EQ(doc["device"]["source"], "api");
  const ordered_json& l1 = doc["elements"][0];
  EXPECT_EQ(l1["id"], "l1");
  EXPECT_EQ(l1["scope"], "sm");
  EXPECT_EQ(l1["size"]["value"], 32768);
  EXPECT_EQ(l1["size"]["unit"], "bytes");
  EXPECT_EQ(l1["size"]["source"], "measured");
  EXPECT_TRUE(l1["latency"]["spread"].contains("p95"));
  EXPECT_FALSE(l1["size"].contains("inconclusive")) << "only written when true";
  EXPECT_FALSE(doc["elements"][2]["size"].contains("confidence")) << "api values have none";
}

TEST(TopologyJson, NonFiniteNumbersBecomeNullAndReadBackAsNaN) {
  Topology topology = testing::make_sample_topology();
  topology.elements[0].find("latency")->spread->stdev = std::nan("");
  ordered_json doc = topology_to_json(topology);
  EXPECT_TRUE(doc["elements"][0]["latency"]["spread"]["stdev"].is_null());
  Topology back = topology_from_json(doc, "memory");
  EXPECT_TRUE(std::isnan(back.elements[0].find("latency")->spread->stdev));
}

TEST(TopologyJson, CorruptTextNamesTheOrigin) {
  std::string error = error_of_text("{\"schema_version\": 1, ");
  EXPECT_NE(error.find("in.json: not valid JSON"), std::string::npos) << error;
}

TEST(TopologyJson, MissingSchemaVersionSaysWhatTheFileIsNot) {
  ordered_json doc = sample_document();
  doc.erase("schema_version");
  EXPECT_NE(error_of(doc).find("schema_version: required key is missing"), std::string::npos);
  EXPECT_NE(error_of_text("[1, 2]").find("expected an object"), std::string::npos);
}

TEST(TopologyJson, NewerSchemaIsRefused) {
  ordered_json doc = sample_document();
  doc["schema_version"] = kSchemaVersion + 1;
  EXPECT_NE(error_of(doc).find("use a newer memtopo"), std::string::npos) << error_of(doc);
}

TEST(TopologyJson, WrongTypeNamesTheJsonPath) {
  ordered_json doc = sample_document();
  doc["elements"][1]["size"]["unit"] = 7;
  EXPECT_NE(error_of(doc).find("in.json: elements[1].size.unit: expected a string, found number"),
            std::string::npos)
      << error_of(doc);

  doc = sample_document();
  doc["device"]["sm_count"] = -4;
  EXPECT_NE(error_of(doc).find("device.sm_count: expected a non-negative integer"),
            std::string::npos)
      << error_of(doc);

  doc = sample_document();
  doc["run"]["phases"][1]["seconds"] = "fast";
  EXPECT_NE(error_of(doc).find("run.phases[1].seconds: expected a number"), std::string::npos)
      << error_of(doc);
}

TEST(TopologyJson, PropertyNeedsValueUnitAndAKnownSource) {
  ordered_json doc = sample_document();
  doc["elements"][0]["line"].erase("value");
  EXPECT_NE(error_of(doc).find("elements[0].line.value: required key is missing"),
            std::string::npos);

  doc = sample_document();
  doc["elements"][0]["line"]["source"] = "guessed";
  EXPECT_NE(error_of(doc).find("unknown source 'guessed'"), std::string::npos);

  doc = sample_document();
  doc["elements"][0]["line"]["bound"] = "about";
  EXPECT_NE(error_of(doc).find("elements[0].line.bound: unknown bound 'about'"), std::string::npos);

  doc = sample_document();
  doc["elements"][0]["line"]["confidence"] = 1.5;
  EXPECT_NE(error_of(doc).find("elements[0].line.confidence: must lie between 0 and 1"),
            std::string::npos);
}

TEST(TopologyJson, DuplicateElementIsAnError) {
  ordered_json doc = sample_document();
  doc["elements"].push_back(doc["elements"][0]);
  EXPECT_NE(error_of(doc).find("element 'l1' appears twice"), std::string::npos);
}

TEST(TopologyJson, UnknownKeysAreIgnoredForForwardCompatibility) {
  ordered_json doc = sample_document();
  doc["added_later"] = {{"x", 1}};
  doc["run"]["added_later"] = true;
  doc["elements"][0]["size"]["added_later"] = "yes";
  EXPECT_EQ(error_of(doc), "no error");
}

TEST(TopologyJson, ReservedPropertyNameCannotBeWritten) {
  Topology topology = testing::make_sample_topology();
  Property bad;
  bad.name = "scope";
  topology.elements[0].set(bad);
  EXPECT_THROW(topology_to_json(topology), std::logic_error);
}

}  // namespace
}  // namespace memtopo
