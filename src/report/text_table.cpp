#include "report/text_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace memtopo {

std::size_t display_width(const std::string& text) {
  // UTF-8 continuation bytes look like 10xxxxxx; every other byte starts a character.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size()) {
    throw std::logic_error("TextTable row has more cells than the table has columns");
  }
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(int indent) const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].title);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }

  auto render_line = [&](const std::vector<std::string>& cells) {
    std::string line(static_cast<std::size_t>(indent), ' ');
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string padding(widths[c] - display_width(cells[c]), ' ');
      if (c > 0) line += "  ";
      line += columns_[c].align == Align::right ? padding + cells[c] : cells[c] + padding;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };

  std::vector<std::string> titles, rules;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    titles.push_back(columns_[c].title);
    rules.push_back(std::string(widths[c], '-'));
  }
  std::string out = render_line(titles) + render_line(rules);
  for (const auto& row : rows_) out += render_line(row);
  return out;
}

}  // namespace memtopo
