#pragma once
// Outputs that would destroy an input or another output, found before anything runs: `--sim X
// --json X` replaced the description with the results, `report R --html R` the run with its
// report, `--json same --html same` kept only one of the two (each exited 0). Every path is
// compared after its symlinks, by the file it names (device and inode) where it exists and by
// its resolved path where it does not yet. Standard output ("-") and character devices
// (/dev/null, a terminal) are never the same file in this sense: writing one twice loses
// nothing.
#include <string>
#include <vector>

namespace memtopo {

struct PathUse {
  std::string option;  // how the user named it: "--json", "--sim", "RUN.json"
  std::string path;    // as given; "" (not given) and "-" are skipped
  bool output = false;
};

// The first output that is the same file as an input or as another output, as a usage
// message naming both; "" when there is none.
std::string aliased_paths(const std::vector<PathUse>& uses);

// A path option given another option as its value (`--json --quiet` wrote a file named
// "--quiet"), as a usage message; "" when `value` does not start with "--".
std::string option_given_as_path(const std::string& option, const std::string& value);

}  // namespace memtopo
