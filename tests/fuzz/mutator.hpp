#pragma once
// Deterministic mutations of a JSON seed: mutation k of a seed is always the same text, so a
// failure found in CI is reproduced by its seed file and number alone.
#include <cstdint>
#include <string>

namespace memtopo::fuzz {

// Mutation `index` of `seed`. The kinds (chosen by the index's random stream):
// - structural, on the parsed seed: one value replaced by a value of another type or an
//   extreme one (0, -1, 2^32-1, 2^63, 2^64-1, 2^64, 1e30, 1e308, 1.5, "", null, [], {}, a long
//   list), a key
//   removed, an unknown key added, a list entry removed or repeated;
// - textual: a number replaced by one no double holds (1e400, a 400-digit integer), a key
//   repeated, a byte flipped, inserted or removed, the text truncated, invalid UTF-8 or a
//   control character inserted, a value wrapped in 100,000 nested lists, NUL-terminated
//   garbage or another value after the document.
// Several mutations may be stacked on one input.
std::string mutate(const std::string& seed, std::uint64_t index);

}  // namespace memtopo::fuzz
