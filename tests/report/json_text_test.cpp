// The one parser of outside JSON (model/json_text.hpp): what it refuses, and that it stays
// linear where nlohmann's callback parse was quadratic.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "model/json_text.hpp"

namespace memtopo {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The problem parse_json_text finds in `text` ("" when none).
template <typename Json = ordered_json>
std::string problem_of(const std::string& text, int max_depth = 32) {
  try {
    parse_json_text<Json>(text, max_depth);
  } catch (const JsonTextError& error) {
    return error.what();
  }
  return "";
}

double seconds_to_parse(const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  const ordered_json document = parse_json_text<ordered_json>(text, 8);
  EXPECT_FALSE(document.is_null());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(JsonText, ReadsWhatNlohmannReadsInTheSameOrder) {
  const std::string text = R"({"b": [1, -2, 3.5, "x", true, null, {}], "a": {"z": 1, "y": [[]]}})";
  const ordered_json parsed = parse_json_text<ordered_json>(text, 8);
  EXPECT_EQ(parsed, ordered_json::parse(text));
  EXPECT_EQ(parsed.begin().key(), "b") << "keys keep the order of the file";
  EXPECT_EQ(parse_json_text<json>(text, 8), json::parse(text));
  EXPECT_EQ(parse_json_text<json>("7", 8), 7);
}

TEST(JsonText, ANulByteAndAnythingAfterTheValueAreRefused) {
  // nlohmann's lexer takes NUL for the end of the input: {...}\0 garbage parsed as {...}.
  const std::string nul = std::string(R"({"a": 1})") + '\0' + " garbage";
  EXPECT_NE(problem_of(nul).find("a NUL byte at byte 8"), std::string::npos) << problem_of(nul);
  EXPECT_NE(problem_of<json>(nul).find("NUL byte"), std::string::npos);
  EXPECT_NE(problem_of(R"({"a": 1} {"b": 2})").find("expected end of input"), std::string::npos)
      << problem_of(R"({"a": 1} {"b": 2})");
  EXPECT_EQ(problem_of(" {\"a\": 1} \n\t "), "") << "whitespace may follow";
}

TEST(JsonText, DuplicateKeysAreRefusedInSmallAndLargeObjects) {
  EXPECT_EQ(problem_of(R"({"a": 1, "b": {"a": 2}})"), "") << "the same key in two objects";
  EXPECT_NE(problem_of(R"({"a": 1, "a": 2})").find("duplicate key \"a\""), std::string::npos);
  EXPECT_NE(problem_of<json>(R"({"a": 1, "a": 2})").find("duplicate key"), std::string::npos);
  std::string large = "{";
  for (int i = 0; i < 100; ++i) large += "\"k" + std::to_string(i) + "\": 1, ";
  EXPECT_NE(problem_of(large + "\"k3\": 2}").find("duplicate key \"k3\""), std::string::npos);
  EXPECT_EQ(problem_of(large + "\"last\": 2}"), "");
  // A megabyte-long key is quoted cut short.
  const std::string key(1 << 20, 'k');
  const std::string twice = "{\"" + key + "\": 1, \"" + key + "\": 2}";
  EXPECT_LT(problem_of(twice).size(), 80u);
}

TEST(JsonText, NestingBeyondTheLimitIsRefusedWhileParsing) {
  EXPECT_EQ(problem_of("[[[1]]]", 3), "");
  EXPECT_NE(problem_of("[[[[1]]]]", 3).find("nested more than 3 deep"), std::string::npos);
  // 100,000 deep: refused at the limit, long before the end of the text.
  EXPECT_NE(problem_of(std::string(100'000, '[') + std::string(100'000, ']')).find("nested"),
            std::string::npos);
}

TEST(JsonText, SyntaxErrorsNameTheLineAndColumnAndStayShort) {
  const std::string problem = problem_of("{\n\"a\": tru}");
  EXPECT_NE(problem.find("line 2, column"), std::string::npos) << problem;
  EXPECT_NE(problem_of("[1e400]").find("number overflow"), std::string::npos);
  EXPECT_LE(problem_of("[" + std::string(100'000, '9') + "x]").size(), 300u);
}

// 400,000 small objects in one list and 200,000 keys in one object: nlohmann's parse with a
// callback scanned the list after every object (100,000 probe outcomes: 2 s; 800,000: over
// 2 minutes) and an ordered_json object its keys on every insertion. Both are linear here:
// well under a second each (the bound leaves room for a sanitizer build on a busy machine).
TEST(JsonText, ManyObjectsAndManyKeysParseInLinearTime) {
  std::string list = "[";
  for (int i = 0; i < 400'000; ++i) list += R"({"id": "p", "status": "ok"},)";
  list.back() = ']';
  EXPECT_LT(seconds_to_parse(list), 10.0);
  std::string object = "{";
  for (int i = 0; i < 200'000; ++i) object += "\"k" + std::to_string(i) + "\": 1,";
  object.back() = '}';
  EXPECT_LT(seconds_to_parse(object), 10.0);
}

}  // namespace
}  // namespace memtopo
