#pragma once
// Writing an output file so that no failure, signal or crash leaves a truncated one.
//
// A regular file (or a path that does not exist yet) is written to a temporary file in the same
// directory, flushed, and renamed over it: a reader sees the old content or the new, never part
// of it, and a failed write leaves the old file as it was. A symlink is followed to its target,
// which is replaced; the link stays. A path that is not a regular file (a FIFO, /dev/null, a
// terminal) is written directly, once, and never replaced. A directory, a read-only file and a
// directory where no file can be created are refused (OutputError) before anything runs.
#include <filesystem>
#include <string>
#include <string_view>

namespace memtopo {

struct OutputTarget {
  std::string given;               // the path as the user gave it, for messages (printable)
  std::filesystem::path path;      // where the bytes go: a symlink's final target
  bool replace_atomically = true;  // false: written in place (FIFO, device, a path via /proc)
  bool exists = false;             // a file is there now (replacing keeps its permissions)
};

// Checks the path now, so that a run does not end in a write error after an hour of measuring:
// follows symlinks, refuses a directory, a read-only file (also for root, who could write it)
// and a directory where a temporary file cannot be created. Throws OutputError.
OutputTarget prepare_output(const std::string& path);

// Writes `text` to the target as described above; `flush_to_disk` also waits until the file is
// on disk before it replaces the old one (for results; traces skip it). Throws OutputError
// naming the path and the reason; the temporary file is then removed.
void write_output(const OutputTarget& target, std::string_view text, bool flush_to_disk);

// Checks that files can be created in `directory` (it exists, is a directory, and a temporary
// file can be made and removed there). Throws OutputError.
void check_directory_writable(const std::filesystem::path& directory, const std::string& what);

// A path written in place (a FIFO, a terminal) can block: a FIFO nobody opens, or a reader that
// stops reading. Such a write waits, but gives up (OutputError) once `stop_requests` (a count of
// stop signals, cli/interrupt.hpp) grows during it. nullptr: waits as long as it takes.
void abandon_blocked_writes_on(unsigned (*stop_requests)());

// The temporary file being written at this moment, or nullptr: a signal handler that ends the
// process at once removes it (unlink is async-signal-safe). Only one is written at a time.
const char* temporary_output_in_progress();

}  // namespace memtopo
