#pragma once
// Text for GitHub markdown: escaping, code fences, relative links and tables (the compact tables
// of summary_tables.hpp). Shared by the markdown report's sections.
#include <string>

#include "report/text_table.hpp"

namespace memtopo {

// Text in a table cell or a paragraph: characters that markdown or the HTML GitHub allows in it
// would interpret are escaped, and a cell stays on one line.
std::string escape_markdown(const std::string& text);

// A code fence longer than any run of backticks in `text`, so that the text cannot close it.
std::string fence_for(const std::string& text);

// A relative link: letters, digits and "-._/" stay, every other byte is percent-encoded, so
// that a folder named "my run (1)-plots" still links.
std::string link_path(const std::string& path);

// The table as a markdown table: its header, right-aligned columns as such, every cell escaped.
std::string markdown_table(const TextTable& table);

}  // namespace memtopo
