#pragma once
// `memtopo report RUN.json --html FILE [--markdown FILE]`: renders a saved run (the JSON of a
// discovery, also a checkpoint of one that did not finish) as the HTML and/or markdown report,
// without a device. Exit codes: 0 written, 2 usage, 4 RUN.json missing or not a memtopo run,
// 7 an output cannot be written.
#include <ostream>

namespace memtopo {

// argv[0] is "report"; the options follow.
int run_report_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace memtopo
