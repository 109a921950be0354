#include "mutator.hpp"

#include <array>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace memtopo::fuzz {
namespace {

using ojson = nlohmann::ordered_json;

// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and the same on every platform.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// Nesting that once overflowed the parser's stack (issue 10).
constexpr std::size_t kDeepNesting = 100'000;
// A list long enough to be slow if something were quadratic in it.
constexpr std::size_t kLongList = 20'000;
constexpr int kMaxStackedMutations = 3;
// The deepest text the structural mutations parse and print again (they recurse).
constexpr int kMaxStructuralDepth = 64;

ojson extreme_value(Random& random) {
  switch (random.below(22)) {
    case 0:
      return 0;
    case 1:
      return -1;
    case 2:
      return 1;
    case 3:
      return std::uint64_t{4294967295u};
    case 4:
      return std::uint64_t{4294967296u};
    case 5:
      return std::uint64_t{1} << 63;
    case 6:
      return UINT64_MAX;
    case 7:
      return INT64_MIN;
    case 8:
      return 1e30;
    case 9:
      return -1e30;
    case 10:
      return 1.5;
    case 11:
      return 1e-300;
    case 12:
      return "";
    case 13:
      return "4";
    case 14:
      return nullptr;
    case 15:
      return true;
    case 16:
      return ojson::array();
    case 17:
      return ojson::object();
    case 18:
      return ojson::array({ojson::array({ojson::array()})});
    case 19:
      return 1e308;  // became LLONG_MIN in an export
    case 20:
      return 18446744073709551616.0;  // 2^64: no integer type holds it
    default:
      return ojson(std::vector<std::uint64_t>(kLongList, 1));
  }
}

// Every value in the document (the document itself first), found without recursion.
std::vector<ojson*> all_values(ojson& document) {
  std::vector<ojson*> values{&document};
  for (std::size_t i = 0; i < values.size(); ++i) {
    ojson& value = *values[i];
    if (!value.is_structured()) continue;
    for (auto& child : value) values.push_back(&child);
  }
  return values;
}

// Mutates the parsed seed; false when the text is not JSON (then a textual mutation is made).
bool mutate_structure(std::string& text, Random& random) {
  // Printing a value recurses: text already nested deeply is mutated as text only.
  struct TooDeep {};
  const ojson::parser_callback_t shallow_only = [](int depth, ojson::parse_event_t, ojson&) {
    if (depth > kMaxStructuralDepth) throw TooDeep{};
    return true;
  };
  ojson document;
  try {
    document = ojson::parse(text, shallow_only, /*allow_exceptions=*/false);
  } catch (const TooDeep&) {
    return false;
  }
  if (document.is_discarded()) return false;
  std::vector<ojson*> values = all_values(document);
  ojson& target = *values[random.below(values.size())];
  switch (random.below(6)) {
    case 0:
    case 1:
    case 2:
      target = extreme_value(random);
      break;
    case 3:  // remove a key or an entry
      if (target.is_object() && !target.empty()) {
        auto it = target.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(random.below(target.size())));
        target.erase(it.key());
      } else if (target.is_array() && !target.empty()) {
        target.erase(random.below(target.size()));
      }
      break;
    case 4:  // an unknown key, or an entry repeated
      if (target.is_object()) {
        target["unknown_" + std::to_string(random.below(100))] = 1;
      } else if (target.is_array() && !target.empty()) {
        target.push_back(target[random.below(target.size())]);
      }
      break;
    default:  // a size or count doubled, halved or off by one: ways that do not divide, ...
      if (target.is_number_unsigned()) {
        const std::uint64_t n = target.get<std::uint64_t>();
        const std::array<std::uint64_t, 5> near = {n * 2, n / 2, n + 1, n - 1, n * 3};
        target = near[random.below(near.size())];
      }
      break;
  }
  text = document.dump();
  return true;
}

// Where a number starts in the text, or npos.
std::size_t some_number(const std::string& text, Random& random) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    const bool follows_digit = i > 0 && ((text[i - 1] >= '0' && text[i - 1] <= '9') ||
                                         text[i - 1] == '.' || text[i - 1] == '-');
    if (digit && !follows_digit) starts.push_back(i);
  }
  return starts.empty() ? std::string::npos : starts[random.below(starts.size())];
}

void mutate_text(std::string& text, Random& random) {
  const std::size_t at = text.empty() ? 0 : random.below(text.size() + 1);
  static const std::array<std::string_view, 7> kBadBytes = {
      "\xff", "\xc0\x80", "\xed\xa0\x80", "\xe2\x82", "\x1b[2J", std::string_view("\0", 1), "\x7f"};
  switch (random.below(11)) {
    case 10:  // something after the document: NUL-terminated garbage, another value
      text += random.below(2) ? std::string("\0 garbage", 9) : std::string(" {}");
      break;
    case 0: {  // a number no double holds
      const std::size_t number = some_number(text, random);
      if (number == std::string::npos) break;
      std::size_t end = number;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
      text.replace(number, end - number, random.below(2) ? "1e400" : std::string(400, '9'));
      break;
    }
    case 1: {  // a key repeated: the first key of some object, again right after its '{'
      const std::size_t brace = text.find('{', at);
      const std::size_t colon = brace == std::string::npos ? brace : text.find(':', brace);
      const std::size_t comma =
          colon == std::string::npos ? colon : text.find_first_of(",}", colon);
      if (comma == std::string::npos) break;
      text.insert(brace + 1, text.substr(brace + 1, comma - brace - 1) + ",");
      break;
    }
    case 2:  // truncated
      text.resize(at);
      break;
    case 3:  // a byte flipped
      if (!text.empty())
        text[random.below(text.size())] ^= static_cast<char>(1 + random.below(255));
      break;
    case 4:  // a byte removed
      if (at < text.size()) text.erase(at, 1);
      break;
    case 5:  // a byte inserted
      text.insert(at, 1, static_cast<char>(random.below(256)));
      break;
    case 6:  // invalid UTF-8 or a control character, inside a string when there is one
      text.insert(text.find('"', at) == std::string::npos ? at : text.find('"', at) + 1,
                  kBadBytes[random.below(kBadBytes.size())]);
      break;
    case 7:  // a value wrapped in nesting no description has
      if (const std::size_t colon = text.find(':', at); colon != std::string::npos) {
        const std::size_t end = text.find_first_of(",}", colon);
        if (end == std::string::npos) break;
        text.insert(end, std::string(kDeepNesting, ']'));
        text.insert(colon + 1, std::string(kDeepNesting, '['));
      }
      break;
    case 8:  // a part repeated
      if (!text.empty()) {
        const std::size_t from = random.below(text.size());
        text.insert(at, text.substr(from, random.below(64)));
      }
      break;
    default:  // emptied, or an unterminated string
      text = random.below(2) ? std::string() : text.substr(0, at) + "\"";
      break;
  }
}

}  // namespace

std::string mutate(const std::string& seed, std::uint64_t index) {
  Random random(index * 0x2545F4914F6CDD1Dull + 1);
  std::string text = seed;
  const int mutations = 1 + static_cast<int>(random.below(kMaxStackedMutations));
  for (int m = 0; m < mutations; ++m) {
    // Structure first and more often: most of what a person gets wrong is a value.
    if (random.below(3) != 0 && mutate_structure(text, random)) continue;
    mutate_text(text, random);
  }
  return text;
}

}  // namespace memtopo::fuzz
