#include "cli/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <ctime>

#include "report/output_file.hpp"

namespace memtopo {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
// A repeat of the first signal within this window is the same request delivered twice.
constexpr std::int64_t kSameRequestNanoseconds = 1'000'000'000;

// Lock-free, hence safe to use from a signal handler.
std::atomic<int> g_signal{0};
std::atomic<std::int64_t> g_first_signal_ns{0};
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<std::int64_t>::is_always_lock_free);

std::int64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// Ends the process now, by `signal`, as if memtopo had not handled it: the parent (a shell, a
// scheduler) sees the signal in the exit status.
void end_by_signal(int signal) {
  if (const char* temporary = temporary_output_in_progress()) unlink(temporary);
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, signal);
  sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  raise(signal);
  _exit(128 + signal);  // only if the default action did not end it
}

extern "C" void on_stop_signal(int signal) {
  const int saved_errno = errno;
  const std::int64_t now = monotonic_ns();
  int first = 0;
  if (g_signal.compare_exchange_strong(first, signal)) {
    g_first_signal_ns.store(now);
  } else if (first != signal || now - g_first_signal_ns.load() >= kSameRequestNanoseconds) {
    end_by_signal(signal);
  }
  errno = saved_errno;
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  // One handler at a time: a TERM that arrives during the INT handler waits for it.
  sigemptyset(&action.sa_mask);
  for (int signal : kStopSignals) sigaddset(&action.sa_mask, signal);
  // System calls (a write, a wait for the GPU) resume after the handler.
  action.sa_flags = SA_RESTART;
  for (int signal : kStopSignals) sigaction(signal, &action, nullptr);

  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

bool interrupt_requested() {
  return g_signal.load() != 0;
}

int interrupt_signal() {
  return g_signal.load();
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace memtopo
