#include <gtest/gtest.h>

#include "model/units.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

TEST(Format, BytesUseBinaryUnitsAndDropTrailingZeros) {
  EXPECT_EQ(format_bytes(128), "128 B");
  EXPECT_EQ(format_bytes(32768), "32 KiB");
  EXPECT_EQ(format_bytes(16524), "16.14 KiB");
  EXPECT_EQ(format_bytes(50.0 * 1024 * 1024), "50 MiB");
  EXPECT_EQ(format_bytes(85899345920.0), "80 GiB");
}

TEST(Format, TimesRatesClocksAndVersions) {
  EXPECT_EQ(format_seconds(2.2e-8), "22 ns");
  EXPECT_EQ(format_seconds(1.5e-6), "1.5 us");
  EXPECT_EQ(format_seconds(0.25), "250 ms");
  EXPECT_EQ(format_seconds(3.256), "3.26 s");
  EXPECT_EQ(format_rate(1.6e12), "1.6 TB/s");
  EXPECT_EQ(format_rate(33.4856e12), "33.49 TB/s");
  EXPECT_EQ(format_rate(9.5e11), "950 GB/s");
  EXPECT_EQ(format_clock_khz(1755000), "1755 MHz");
  EXPECT_EQ(format_cuda_version(12080), "12.8");
}

TEST(Format, ValuesByUnit) {
  EXPECT_EQ(format_value(33.5, "cycles"), "33.5 cy");
  EXPECT_EQ(format_value("lru", ""), "lru");
  EXPECT_EQ(format_value(nlohmann::json::array({"tex", "ro"}), ""), "tex, ro");
  EXPECT_EQ(format_value(nlohmann::json::array(), ""), "none");
  EXPECT_EQ(format_value(nullptr, "bytes"), "?");
  EXPECT_EQ(format_value(nlohmann::json::array({17, 8}), ""), "17, 8");
  // Runs of four or more equal items are counted, shorter ones listed.
  EXPECT_EQ(format_value(nlohmann::json::array({16, 16, 16, 16, 16, 15, 15, 15}), ""),
            "16 (x5), 15, 15, 15");
  EXPECT_EQ(format_value(nlohmann::json::array({2048, 2048, 2048, 2048}), "bytes"), "2 KiB (x4)");
}

TEST(TextTable, AlignsColumnsCountingUtf8AsOneColumn) {
  TextTable table({{"Id"}, {"Value", TextTable::Align::right}});
  table.add_row({"l1", "33 ±1"});
  table.add_row({"constant_l15", "7"});
  EXPECT_EQ(table.render(1),
            " Id            Value\n"
            " ------------  -----\n"
            " l1            33 ±1\n"
            " constant_l15      7\n");
}

TEST(TextTable, ShortensOrWrapsFlexibleColumnsToTheWidthLimit) {
  using Column = TextTable::Column;
  const std::string method = "one sequential chase over C + k lines at stride b overfills k sets";
  TextTable shortened(
      {Column{"Id"}, Column{"Method", TextTable::Align::left, TextTable::Overflow::shorten}});
  shortened.add_row({"l2.ways", method});
  EXPECT_EQ(shortened.render(2, 40),
            "  Id       Method\n"
            "  -------  ----------------------------\n"
            "  l2.ways  one sequential chase over C…\n");
  EXPECT_EQ(shortened.render(2),
            "  Id       Method\n"
            "  -------  " +
                std::string(method.size(), '-') +
                "\n"
                "  l2.ways  " +
                method + "\n")
      << "no limit, no shortening";

  TextTable wrapped(
      {Column{"Id"}, Column{"Reason", TextTable::Align::left, TextTable::Overflow::wrap}});
  wrapped.add_row({"l2.sets", method});
  EXPECT_EQ(wrapped.render(2, 40),
            "  Id       Reason\n"
            "  -------  -----------------------------\n"
            "  l2.sets  one sequential chase over C +\n"
            "           k lines at stride b overfills\n"
            "           k sets\n");
}

TEST(TextTable, KeptColumnsAreNeverCut) {
  TextTable table({{"Value"}, {"Method", TextTable::Align::left, TextTable::Overflow::shorten}});
  const std::string value(50, 'x');
  table.add_row({value, "within the minimum width"});
  const std::string out = table.render(0, 40);
  EXPECT_NE(out.find(value), std::string::npos) << out;
  EXPECT_NE(out.find("within the minimum width"), std::string::npos)
      << "a flexible column keeps kMinFlexibleWidth: " << out;
}

TEST(TextFit, ShortenCutsAtAWordAndDropsAnOpenParenthesis) {
  EXPECT_EQ(shorten_to_width("fits", 4), "fits");
  EXPECT_EQ(shorten_to_width("warm pointer chase via cg, alone on SM 0", 30),
            "warm pointer chase via cg…");
  EXPECT_EQ(shorten_to_width("overfull-set pointer chases (paper 000, 3.2)", 40),
            "overfull-set pointer chases…");
  EXPECT_EQ(shorten_to_width("abcdefghijklmnop", 8), "abcdefg…") << "no word ends early enough";
  EXPECT_EQ(shorten_to_width("±±±±±±±±±±±±", 10), "±±±±±±±±±…") << "cuts characters, not bytes";
}

TEST(TextFit, WrapKeepsWordsWholeAndIndentsContinuations) {
  EXPECT_EQ(wrap_words("a bb ccc dddd", 6), (std::vector<std::string>{"a bb", "ccc", "dddd"}));
  EXPECT_EQ(wrap_words("unbreakable", 4), (std::vector<std::string>{"unbreakable"}));
  EXPECT_EQ(wrap_words("", 4), (std::vector<std::string>{""}));
  EXPECT_EQ(wrap_paragraph("l2.ways: the lines that missed do not form runs", "  [3] ", 32),
            "  [3] l2.ways: the lines that\n"
            "      missed do not form runs\n");
}

TEST(TextTable, TooManyCellsIsAProgrammingError) {
  TextTable table({{"A"}});
  EXPECT_THROW(table.add_row({"1", "2"}), std::logic_error);
}

}  // namespace
}  // namespace memtopo
