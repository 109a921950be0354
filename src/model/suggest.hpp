#pragma once
// "Did you mean" for a mistyped subcommand, option, --only id or study: the closest known word
// by edit distance.
#include <optional>
#include <string>
#include <vector>

namespace memtopo {

// Levenshtein distance (insert, delete, substitute; an adjacent swap counts as one).
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word`, if it is close enough to be a typo: at most a third of the
// word's length away (at least 1, at most 3 edits). Ties go to the first candidate.
std::optional<std::string> closest_word(const std::string& word,
                                        const std::vector<std::string>& candidates);

// "; did you mean 'compare'?", or "." where nothing is close: either ends the sentence.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace memtopo
