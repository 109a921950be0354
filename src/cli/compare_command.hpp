#pragma once
// `memtopo compare [--json FILE] [--all] A.json B.json`: what changed between two saved runs.
#include <ostream>

namespace memtopo {

// argv[0] is the program, argv[1] "compare". Returns 0 when the runs agree within their
// spreads, exit_code::runs_differ when they differ, usage / bad_input / cannot_write on error.
int run_compare_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace memtopo
