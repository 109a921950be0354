#pragma once
// `memtopo fleet DIR-or-FILES... [--json FILE] [--html FILE]`: many GPUs' runs, the ones that
// differ from their model's fleet named (report/fleet.hpp, docs/fleet.md).
#include <ostream>

namespace memtopo {

// argv[0] is the program, argv[1] "fleet". Returns 0 when no GPU differs, exit_code::runs_differ
// when some do, usage / bad_input / cannot_write on error.
int run_fleet_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace memtopo
