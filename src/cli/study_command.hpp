#pragma once
// `memtopo study <id>`: runs one code-pattern study (src/study/) on one device, with the same
// device, output and GPU-claim options as a discovery.
#include <ostream>

namespace memtopo {

// argv as main() got it (argv[1] == "study"). Returns the exit code (cli/exit_codes.hpp).
int run_study_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace memtopo
