#pragma once
// Parsing JSON text that comes from outside (a run file, a simulated-device description): one
// parser for every reader, in time linear in the text, that refuses what nlohmann's own parse
// lets through or handles slowly:
//   - a NUL byte (nlohmann's lexer takes it for the end of the input, so `{...}\0 garbage`
//     parsed as `{...}`);
//   - anything but whitespace after the top-level value;
//   - duplicate keys (the second would silently win, or, for ordered_json, silently lose);
//   - lists and objects nested deeper than a limit, refused while parsing, before the value
//     exists (code that walks a value recursively could overflow the stack on it).
// nlohmann's parse with a callback scans the parent container after every object (quadratic
// in a list of objects: 100,000 probe outcomes took 2 s, 800,000 over 2 minutes), and an
// ordered_json object searches its keys on every insertion; this parser does neither.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace memtopo {

// What is wrong with the text; `what` names the problem and where (a line and column, a byte
// offset or a key), without the origin: the caller adds it, in its own error type.
class JsonTextError : public std::runtime_error {
 public:
  enum class Kind { syntax, nul_byte, duplicate_key, too_deep };
  JsonTextError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Parses `text` as one JSON value (nlohmann::json or nlohmann::ordered_json), lists and objects
// nested at most `max_depth` deep. Throws JsonTextError.
template <typename Json>
Json parse_json_text(std::string_view text, int max_depth);

extern template nlohmann::json parse_json_text<nlohmann::json>(std::string_view, int);
extern template nlohmann::ordered_json parse_json_text<nlohmann::ordered_json>(std::string_view,
                                                                               int);

// The first NUL byte of `text`, or npos.
inline std::size_t first_nul_byte(std::string_view text) {
  return text.find('\0');
}

}  // namespace memtopo
