#pragma once
// Ctrl-C handling: the first SIGINT asks the run to stop after the current batch (probes check
// between batches, and what was measured is still written); a second one ends the process at
// once, for when a batch takes too long to wait for.
namespace memtopo {

void install_interrupt_handler();
bool interrupt_requested();

}  // namespace memtopo
