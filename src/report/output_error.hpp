#pragma once
#include <stdexcept>

namespace memtopo {

// An output (JSON file, trace directory) that cannot be written. The message names the path
// and the reason; the CLI turns it into its "cannot write output" exit code.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace memtopo
