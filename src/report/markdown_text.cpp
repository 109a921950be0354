#include "report/markdown_text.hpp"

#include <algorithm>
#include <cctype>

#include "model/printable_text.hpp"
#include "report/svg_plot.hpp"

namespace memtopo {

std::string escape_markdown(const std::string& text) {
  std::string out;
  for (char c : printable_lines(text)) {
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '#':
        out += '\\';
        out += c;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string fence_for(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string link_path(const std::string& path) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::string markdown_table(const TextTable& table) {
  std::string header = "|", rule = "|";
  for (const TextTable::Column& column : table.columns()) {
    header += " " + escape_markdown(column.title) + " |";
    rule += column.align == TextTable::Align::right ? "---:|" : "---|";
  }
  std::string text = header + "\n" + rule + "\n";
  for (const std::vector<std::string>& row : table.rows()) {
    text += "|";
    for (std::size_t i = 0; i < table.columns().size(); ++i) {
      text += " " + (i < row.size() ? escape_markdown(row[i]) : std::string()) + " |";
    }
    text += "\n";
  }
  return text;
}

}  // namespace memtopo
