#pragma once
// A plain-text table with aligned columns, as the console report prints them.
#include <string>
#include <vector>

namespace memtopo {

class TextTable {
 public:
  enum class Align { left, right };

  struct Column {
    std::string title;
    Align align = Align::left;
  };

  explicit TextTable(std::vector<Column> columns);

  // Missing trailing cells print empty; extra cells are a programming error (std::logic_error).
  void add_row(std::vector<std::string> cells);

  // Header, a dashed rule, then the rows; every line starts with `indent` spaces and ends
  // without trailing blanks.
  std::string render(int indent) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Width of `text` in terminal columns, counting each UTF-8 character (e.g. "±") as one.
std::size_t display_width(const std::string& text);

}  // namespace memtopo
