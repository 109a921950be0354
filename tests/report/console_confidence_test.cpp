// The console's low-confidence marks: which values get `~ [n]`, and what their notes say.
#include <gtest/gtest.h>

#include "analysis/confidence.hpp"
#include "report/console.hpp"
#include "report/footnotes.hpp"
#include "sample_topology.hpp"

namespace memtopo {
namespace {

Property measured(const std::string& name, nlohmann::json value, const std::string& unit,
                  std::optional<double> confidence) {
  return testing::measured_property(name, std::move(value), unit, confidence);
}

Property with_factors(Property p, const Confidence& confidence) {
  p.confidence = confidence.value();
  p.evidence["confidence_factors"] = confidence.evidence();
  return p;
}

std::string line_starting(const std::string& report, const std::string& start) {
  const std::size_t at = report.find("\n" + start);
  if (at == std::string::npos) return "";
  return report.substr(at + 1, report.find('\n', at + 1) - at - 1);
}

// Note n of the Notes section with its wrapped lines joined: "l1.line: low confidence ...".
std::string note_text(const std::string& report, int n) {
  const std::string mark = "  [" + std::to_string(n) + "] ";
  std::size_t at = report.find("\n" + mark);
  if (at == std::string::npos) return "";
  at += 1 + mark.size();
  std::string text = report.substr(at, report.find('\n', at) - at);
  const std::string continuation = "\n" + std::string(mark.size(), ' ');
  for (at = report.find('\n', at);
       at != std::string::npos && report.compare(at, continuation.size(), continuation) == 0;
       at = report.find('\n', at + 1)) {
    const std::size_t start = at + continuation.size();
    text += " " + report.substr(start, report.find('\n', start) - start);
  }
  return text;
}

TEST(ConsoleConfidence, MarksValuesBelowTheThresholdOnly) {
  Topology topology;
  Element& l1 = topology.element("l1", "cache", "sm");
  l1.set(measured("line", 128, "bytes", 0.49));
  l1.set(measured("sector", 32, "bytes", kLowConfidence));
  l1.set(measured("size", 32768, "bytes", std::nullopt));
  const std::string report = render_console(topology);
  const std::string row = line_starting(report, "  l1 ");
  EXPECT_NE(row.find("128 B ~ [1]"), std::string::npos) << row;
  EXPECT_EQ(row.find("32 B ~"), std::string::npos) << "0.5 is not low: " << row;
  EXPECT_EQ(row.find("32 KiB ~"), std::string::npos) << "no confidence, no mark: " << row;
  EXPECT_EQ(report.find("[2]"), std::string::npos) << report;
  EXPECT_EQ(note_text(report, 1), "l1.line: low confidence 0.49: no factors recorded") << report;
}

TEST(ConsoleConfidence, NoteNamesTheWeakestFactorFirst) {
  Topology topology;
  topology.element("tex", "cache", "sm")
      .set(with_factors(measured("line", 512, "bytes", std::nullopt),
                        Confidence{agreement(8, 8, "strides"), methods_agreeing(1, 2, "methods"),
                                   share(0.6, "of the misses")}));
  const std::string report = render_console(topology);
  EXPECT_EQ(note_text(render_console(topology), 1),
            "tex.line: low confidence 0.27: methods_agreeing 0.5 (1 of 2 methods); share 0.6 "
            "(0.6 of the misses); agreement 0.9 (8 of 8 strides)")
      << report;
}

// A latency of two modes shows both; a far mode whose own confidence is low is marked, and its
// note names the mode and its factors, while the headline (near) keeps its own confidence.
TEST(ConsoleConfidence, ALowFarModeIsMarkedWithItsOwnNote) {
  Topology topology;
  Property latency = measured("latency", 480, "cycles", 0.9);
  const Confidence far{agreement(1, 8, "parts showing the mode")};
  latency.modes = {Mode{"near", 480, 0.8, {}, 0.9, nlohmann::json::array()},
                   Mode{"far", 630, 0.2, {}, far.value(), far.evidence()}};
  topology.element("dram", "memory", "device").set(latency);
  const std::string report = render_console(topology);
  const std::string row = line_starting(report, "  dram ");
  EXPECT_NE(row.find("480 / 630 cy (80 % / 20 %) ~ [1]"), std::string::npos) << row;
  EXPECT_EQ(note_text(report, 1),
            "dram.latency (far mode): low confidence 0.2: agreement 0.2 (1 of 8 parts showing "
            "the mode)")
      << report;
}

TEST(ConsoleConfidence, RoundingNeverLiftsALowValueToTheThreshold) {
  EXPECT_EQ(format_confidence(0.499), "0.499");
  EXPECT_EQ(format_confidence(0.4999), "0.4999");
  EXPECT_EQ(format_confidence(0.31), "0.31");
  EXPECT_EQ(format_confidence(0.954), "0.95");
  EXPECT_EQ(format_confidence(kLowConfidence), "0.5");
}

TEST(ConsoleConfidence, InconclusiveValuesKeepTheirOwnNoteOnly) {
  // Older runs wrote a confidence on inconclusive values; their note says more than `~` would.
  Topology topology;
  Property bound = measured("size", 16384, "bytes", 0.2);
  bound.inconclusive = true;
  bound.bound = Bound::lower;
  bound.note = "no edge up to 16 KiB";
  topology.element("tex", "cache", "sm").set(bound);
  const std::string report = render_console(topology);
  EXPECT_NE(report.find("≥ 16 KiB [1]"), std::string::npos) << report;
  EXPECT_EQ(line_starting(report, "  tex ").find('~'), std::string::npos) << report;
  EXPECT_EQ(report.find("low confidence 0.2"), std::string::npos) << report;
}

TEST(ConsoleConfidence, SourceColumnCarriesTheMarkInOtherFindings) {
  const std::string report = render_console(testing::make_sample_topology());
  const std::string policy = line_starting(report, "  l1.policy ");
  EXPECT_NE(policy.find("measured, confidence 0.45 ~ ["), std::string::npos) << policy;
  EXPECT_EQ(policy.find("lru ~"), std::string::npos) << "marked once, in Source: " << policy;
  const std::string ways = line_starting(report, "  l1.ways ");
  EXPECT_EQ(ways.find('~'), std::string::npos) << ways;
  EXPECT_EQ(note_text(report, 6),
            "l1.policy: low confidence 0.45: share 0.5 (0.5 of the victims in the predicted "
            "order); agreement 0.9 (8 of 8 passes)")
      << report;
}

TEST(ConsoleConfidence, ElementsTableMarksValuesWithAndWithoutFactors) {
  const std::string report = render_console(testing::make_sample_topology());
  EXPECT_NE(line_starting(report, "  l1 ").find("128 B ~ [1]"), std::string::npos) << report;
  EXPECT_NE(line_starting(report, "  tex ").find("l1 ~ [4]"), std::string::npos) << report;
  EXPECT_EQ(note_text(report, 1),
            "l1.line: low confidence 0.33: methods_agreeing 0.5 (1 of 2 methods); agreement 0.667 "
            "(1 of 1 stride beyond the line)")
      << report;
  EXPECT_EQ(note_text(report, 4), "tex.shared_with: low confidence 0.31: no factors recorded")
      << report;
  EXPECT_NE(report.find("  ~ [n] low confidence (below 0.5)"), std::string::npos)
      << "the legend explains the mark: " << report;
}

TEST(ConsoleConfidence, CarveoutRowsBelowTheThresholdAreMarked) {
  const std::string report = render_console(testing::make_sample_topology());
  EXPECT_NE(line_starting(report, "           24 KiB ").find("0.25 ~ ["), std::string::npos)
      << report;
  EXPECT_EQ(line_starting(report, "           16 KiB ").find('~'), std::string::npos)
      << "0.5 is not low: " << report;
  EXPECT_EQ(note_text(report, 5),
            "l1.carveout at 24 KiB reserved: low confidence 0.25: edge 0.25 (edge of the size "
            "search)")
      << report;
}

TEST(ConsoleConfidence, MalformedFactorsAreSkipped) {
  nlohmann::json evidence = {
      {"confidence_factors",
       {{{"rule", "agreement"}, {"value", 0.75}, {"inputs", "2 of 2 passes"}},
        {{"rule", "contrast"}, {"value", 7}},
        {{"value", 0.1}},
        "not a factor"}}};
  EXPECT_EQ(explain_confidence_factors(evidence), "agreement 0.75 (2 of 2 passes)");
  EXPECT_EQ(explain_confidence_factors(nlohmann::json::object()), "no factors recorded");
  EXPECT_EQ(explain_confidence_factors({{"confidence_factors", "nonsense"}}),
            "no factors recorded");
}

}  // namespace
}  // namespace memtopo
