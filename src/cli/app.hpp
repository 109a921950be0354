#pragma once
// The memtopo command: parse the command line, then list probes or run a discovery.
#include <ostream>

namespace memtopo {

// Returns the process exit code (cli/exit_codes.hpp); never throws.
int run_memtopo(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace memtopo
