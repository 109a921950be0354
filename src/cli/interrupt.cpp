#include "cli/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace memtopo {
namespace {

// Lock-free, hence safe to write from a signal handler.
std::atomic<bool> g_interrupt_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_interrupt(int) {
  g_interrupt_requested.store(true);
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND restores the default after the first signal: the second Ctrl-C terminates.
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
}

bool interrupt_requested() {
  return g_interrupt_requested.load();
}

}  // namespace memtopo
