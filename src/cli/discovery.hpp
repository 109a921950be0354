#pragma once
// One discovery from parsed options to written reports; returns the process exit code.
#include <ostream>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace memtopo {

// `arguments` (argv without the program name) are recorded in the report. Results go to
// `out`, errors, notes and progress to `err`.
int run_discovery(const Options& options, const std::vector<std::string>& arguments,
                  std::ostream& out, std::ostream& err);

}  // namespace memtopo
