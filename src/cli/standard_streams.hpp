#pragma once
// Standard output that cannot be written: closed (`>&-`), full (`>/dev/full`) or a pipe whose
// reader has gone (`| head -1`, `| true`). memtopo still writes every file it was asked for and
// ends with exit 7 and a message (README.md), instead of dying by SIGPIPE (exit 141, without a
// word) or, with stdout closed, writing its console report into the first file it opened.
#include <ostream>

namespace memtopo {

// First thing in main: ignores SIGPIPE (a write to a pipe without a reader then fails with
// EPIPE, which the outputs report), and gives a closed stdin, stdout or stderr /dev/null, so
// that no file memtopo opens becomes descriptor 1; writing to a stdout that was closed fails,
// so that the report's write to it says so.
void guard_standard_streams();

// After a command: when standard output could not be written and the command did not already
// end with exit 7, says so on `err` and returns 7 (which wins over every other code but 1);
// else returns `code`.
int check_standard_output(int code, std::ostream& err);

}  // namespace memtopo
