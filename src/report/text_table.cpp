#include "report/text_table.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace memtopo {

namespace {

constexpr const char* kEllipsis = "…";
constexpr const char* kColumnGap = "  ";
constexpr std::size_t kColumnGapWidth = 2;

bool starts_character(char c) {
  // UTF-8 continuation bytes look like 10xxxxxx; every other byte starts a character.
  return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
}

// Bytes that the first `columns` characters of `text` take (all of it when it is shorter).
std::size_t bytes_of_first(const std::string& text, std::size_t columns) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (starts_character(text[i]) && seen++ == columns) return i;
  }
  return text.size();
}

std::string pad(const std::string& cell, std::size_t width, TextTable::Align align) {
  const std::size_t used = display_width(cell);
  const std::string padding(width > used ? width - used : 0, ' ');
  return align == TextTable::Align::right ? padding + cell : cell + padding;
}

}  // namespace

std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), starts_character));
}

std::string shorten_to_width(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  if (width == 0) return "";
  const std::size_t room = width - 1;  // the ellipsis takes one column
  std::string kept = text.substr(0, bytes_of_first(text, room));
  const bool cut_at_word_end = text[kept.size()] == ' ';
  const std::size_t last_space = kept.rfind(' ');
  // Cut at the last word that ends in the room, unless that throws away more than half of it.
  if (!cut_at_word_end && last_space != std::string::npos &&
      display_width(kept.substr(0, last_space)) >= room / 2) {
    kept.erase(last_space);
  }
  // A parenthesis the cut leaves open goes, unless that too leaves less than half.
  const std::size_t open = kept.rfind('(');
  if (open != std::string::npos && kept.find(')', open) == std::string::npos &&
      display_width(kept.substr(0, open)) >= room / 2) {
    kept.erase(open);
  }
  kept.erase(kept.find_last_not_of(" ,;:(") + 1);
  return kept + kEllipsis;
}

std::vector<std::string> wrap_words(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!lines.empty() && display_width(lines.back()) + 1 + display_width(word) <= width) {
      lines.back() += " " + word;
    } else {
      lines.push_back(word);
    }
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

std::string wrap_paragraph(const std::string& text, const std::string& first_prefix,
                           std::size_t max_width) {
  const std::size_t prefix_width = display_width(first_prefix);
  const std::size_t width =
      max_width == 0
          ? text.size()
          : std::max(max_width, prefix_width + TextTable::kMinFlexibleWidth) - prefix_width;
  const std::string continuation(prefix_width, ' ');
  std::string out;
  for (const std::string& line : wrap_words(text, std::max<std::size_t>(width, 1))) {
    out += (out.empty() ? first_prefix : continuation) + line + "\n";
  }
  return out;
}

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size()) {
    throw std::logic_error("TextTable row has more cells than the table has columns");
  }
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::vector<std::size_t> TextTable::fitted_widths(std::size_t indent, std::size_t max_width) const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].title);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  if (max_width == 0 || widths.empty()) return widths;
  std::size_t total =
      std::accumulate(widths.begin(), widths.end(), indent) + kColumnGapWidth * (widths.size() - 1);
  for (std::size_t c = columns_.size(); c-- > 0 && total > max_width;) {
    if (columns_[c].overflow == Overflow::keep) continue;
    const std::size_t least = columns_[c].min_width ? columns_[c].min_width : kMinFlexibleWidth;
    const std::size_t floor = std::max(least, display_width(columns_[c].title));
    const std::size_t narrowed =
        std::max(floor, widths[c] - std::min(widths[c], total - max_width));
    if (narrowed >= widths[c]) continue;
    total -= widths[c] - narrowed;
    widths[c] = narrowed;
  }
  return widths;
}

std::string TextTable::render(int indent, std::size_t max_width) const {
  const std::size_t margin = static_cast<std::size_t>(std::max(indent, 0));
  const std::vector<std::size_t> limits = fitted_widths(margin, max_width);

  // Every row as the lines of each of its cells: shortened, wrapped or as it is.
  using FittedRow = std::vector<std::vector<std::string>>;
  auto fit = [&](const std::vector<std::string>& cells) {
    FittedRow parts(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c) {
      switch (columns_[c].overflow) {
        case Overflow::keep:
          parts[c] = {cells[c]};
          break;
        case Overflow::shorten:
          parts[c] = {shorten_to_width(cells[c], limits[c])};
          break;
        case Overflow::wrap:
          parts[c] = wrap_words(cells[c], limits[c]);
          break;
      }
    }
    return parts;
  };
  std::vector<std::string> titles;
  for (const Column& column : columns_) titles.push_back(column.title);
  std::vector<FittedRow> fitted = {fit(titles)};
  for (const auto& row : rows_) fitted.push_back(fit(row));

  // A column is as wide as what it shows after fitting (cuts may end short of the limit).
  std::vector<std::size_t> widths(columns_.size(), 0);
  for (const FittedRow& row : fitted) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      for (const auto& part : row[c]) widths[c] = std::max(widths[c], display_width(part));
    }
  }
  std::vector<std::string> rules;
  for (std::size_t width : widths) rules.push_back(std::string(width, '-'));
  fitted.insert(fitted.begin() + 1, fit(rules));

  std::string out;
  for (const FittedRow& row : fitted) {
    std::size_t height = 1;
    for (const auto& cell : row) height = std::max(height, cell.size());
    for (std::size_t l = 0; l < height; ++l) {
      std::string line(margin, ' ');
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (c > 0) line += kColumnGap;
        line += pad(l < row[c].size() ? row[c][l] : "", widths[c], columns_[c].align);
      }
      line.erase(line.find_last_not_of(' ') + 1);
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace memtopo
