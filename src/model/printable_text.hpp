#pragma once
// Text that comes from outside memtopo (names in input files, command-line arguments, paths),
// made safe to print on a terminal and to store in JSON. Valid UTF-8 stays as it is, except
// control characters, which could move the cursor, recolour or clear a terminal: C0 controls and
// DEL become \xNN, C1 controls (U+0080 to U+009F) \u00NN. Bytes that are not UTF-8 (a path in
// Latin-1) become \xNN too, so the result is always valid UTF-8. Header-only, so that the
// simulated device's loader, the CLI and the reporters can all use it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace memtopo {

namespace printable_detail {

inline void append_escape(std::string& out, const char* prefix, unsigned value) {
  constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  out += kHex[(value >> 4) & 0xF];
  out += kHex[value & 0xF];
}

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when it is not one.
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace printable_detail

inline std::string printable_text(std::string_view text) {
  using namespace printable_detail;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7F) {
      append_escape(out, "\\x", byte);
      ++i;
    } else if (byte < 0x80) {
      out += static_cast<char>(byte);
      ++i;
    } else if (std::size_t length = utf8_sequence_length(text, i); length == 0) {
      append_escape(out, "\\x", byte);
      ++i;
    } else if (byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      append_escape(out, "\\u00", static_cast<unsigned char>(text[i + 1]));  // a C1 control
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

// Whether printable_text() would return `text` unchanged.
inline bool is_printable_text(std::string_view text) {
  return printable_text(text) == text;
}

}  // namespace memtopo
