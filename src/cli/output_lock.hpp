#pragma once
// One memtopo per output: two runs writing one --json file or --traces directory both exited 0,
// one overwriting the other (35 of 721 trace names collided). The second refuses now, before
// it measures (exit 7), naming the first's pid, as the GPU lock (gpu_lock.hpp) does: an
// exclusive flock(2) on a lock file beside the file (".NAME.memtopo-lock" in its directory) or
// inside the directory (".memtopo-lock"), held until the process ends. The kernel releases it
// however the process ends; the file itself is removed when the lock is let go normally.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "report/output_file.hpp"

namespace memtopo {

class OutputLocks {
 public:
  OutputLocks() = default;
  ~OutputLocks();
  OutputLocks(const OutputLocks&) = delete;
  OutputLocks& operator=(const OutputLocks&) = delete;

  // Locks the output `target` (prepare_output's: a regular file, by where its bytes go; none,
  // a FIFO or a device: nothing to lock). Throws OutputError naming the holder when another
  // memtopo holds it. A lock file that cannot be made is no error (prepare_output has refused
  // a directory that takes no new file).
  void lock_file(const std::optional<OutputTarget>& target);
  // The same for a directory whose files memtopo writes (--traces).
  void lock_directory(const std::filesystem::path& directory, const std::string& shown);

 private:
  void lock(const std::filesystem::path& lock_path, const std::string& shown);

  struct Held {
    std::filesystem::path path;
    int fd;
  };
  std::vector<Held> held_;
};

}  // namespace memtopo
