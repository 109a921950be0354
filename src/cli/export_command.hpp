#pragma once
// `memtopo export accel-sim RUN.json FILE`: an export of a saved run (docs/export.md).
#include <ostream>

namespace memtopo {

// argv[0] is the program, argv[1] "export". Returns 0, or usage / bad_input / cannot_write.
int run_export_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace memtopo
