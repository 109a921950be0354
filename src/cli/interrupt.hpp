#pragma once
// Signals that ask a run to stop: SIGINT (Ctrl-C), SIGTERM (a batch scheduler's time limit, a
// shutdown) and SIGHUP (the terminal or ssh session went away). The first is acknowledged on
// stderr at once and asks the run to stop after the current batch (probes check between
// batches); what was measured is still written; the same signal again within a second counts as the
// same request (`timeout -s INT` signals the process and its process group, so it arrives twice).
// Any later signal ends the process at once, by that signal; the last checkpoint of the JSON file
// stays on disk.
namespace memtopo {

// Also ignores SIGXFSZ, so that a file-size limit (ulimit -f) fails a write with an error the
// outputs report instead of killing the process.
void install_interrupt_handler();
bool interrupt_requested();
// Stop signals handled so far (a repeat within the second included). An output write that
// blocks (a FIFO nobody reads) gives up when this grows (report/output_file.hpp).
unsigned stop_requests();
// The signal that asked the run to stop (SIGINT, SIGTERM, SIGHUP), or 0.
int interrupt_signal();
// "SIGINT", "SIGTERM", "SIGHUP" (or "signal N").
const char* signal_name(int signal);

}  // namespace memtopo
