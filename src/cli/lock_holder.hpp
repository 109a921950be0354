#pragma once
// The line a lock file holds about its holder ("pid 123 since 2026-01-01T00:00:00Z"), written
// by the process that took the lock and read by one that finds it taken: the GPU lock
// (gpu_lock.hpp) and the output locks (output_lock.hpp).
#include <string>

namespace memtopo {

// The holder's line in the lock file `fd`, control characters replaced; "holder unknown" when
// the file holds none.
std::string read_lock_holder(int fd);

// Replaces the file's content with this process's line. Best effort: a waiting memtopo only
// prints it.
void write_lock_holder(int fd);

}  // namespace memtopo
