#pragma once
// A plain-text table with aligned columns, as the console report prints them, and the text
// fitting it needs (widths in terminal columns, shortening, word wrapping).
#include <cstddef>
#include <string>
#include <vector>

namespace memtopo {

class TextTable {
 public:
  enum class Align { left, right };
  // What a column does when the table is wider than render()'s limit: nothing (values keep
  // their width), cut its cells with an ellipsis (shorten_to_width), or wrap them onto
  // continuation lines under the column (wrap_words).
  enum class Overflow { keep, shorten, wrap };

  struct Column {
    std::string title;
    Align align = Align::left;
    Overflow overflow = Overflow::keep;
    std::size_t min_width = 0;  // a shortened or wrapped column's narrowest (0: kMinFlexibleWidth)
  };

  // The narrowest a shortened or wrapped column becomes, however wide the others are.
  static constexpr std::size_t kMinFlexibleWidth = 24;

  explicit TextTable(std::vector<Column> columns);

  // Missing trailing cells print empty; extra cells are a programming error (std::logic_error).
  void add_row(std::vector<std::string> cells);

  // Header, a dashed rule, then the rows; every line starts with `indent` spaces and ends
  // without trailing blanks. With `max_width` (0: none), shortened and wrapped columns narrow,
  // the last first, until lines fit, each down to kMinFlexibleWidth; a table whose other
  // columns are wider than that allows stays wider.
  std::string render(int indent, std::size_t max_width = 0) const;

  // The cells as given, for renderers of other formats (report/markdown_text.cpp,
  // report/html_summary.cpp).
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }

 private:
  std::vector<std::size_t> fitted_widths(std::size_t indent, std::size_t max_width) const;

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Width of `text` in terminal columns, counting each UTF-8 character (e.g. "±") as one.
std::size_t display_width(const std::string& text);

// `text` when it fits in `width` columns; otherwise its longest start that ends at a word and
// leaves room for "…" (trailing punctuation dropped), or a hard cut where no word ends early
// enough.
std::string shorten_to_width(const std::string& text, std::size_t width);

// `text` broken at spaces into lines of at most `width` columns; a word longer than that
// stays whole on a line of its own.
std::vector<std::string> wrap_words(const std::string& text, std::size_t width);

// `text` wrapped to `max_width` columns with `first_prefix` before its first line and blanks
// of the same width before the others: "  [3] a note that goes on\n      under itself\n".
std::string wrap_paragraph(const std::string& text, const std::string& first_prefix,
                           std::size_t max_width);

}  // namespace memtopo
