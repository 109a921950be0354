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
  EXPECT_EQ(format_rate(1.6e12), "1600 GB/s");
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

TEST(TextTable, TooManyCellsIsAProgrammingError) {
  TextTable table({{"A"}});
  EXPECT_THROW(table.add_row({"1", "2"}), std::logic_error);
}

}  // namespace
}  // namespace memtopo
