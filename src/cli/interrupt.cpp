#include "cli/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
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
std::atomic<unsigned> g_stop_requests{0};
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<std::int64_t>::is_always_lock_free);
static_assert(std::atomic<unsigned>::is_always_lock_free);
// Set once before the handler is installed: a terminal's progress line is ended first.
bool g_stderr_is_terminal = false;

// The acknowledgement of the first stop, written by the handler itself (write(2) is
// async-signal-safe): a batch can take seconds on a slow device, and a user who sees nothing
// presses again and loses the results.
const char* acknowledgement(int signal) {
  switch (signal) {
    case SIGINT:
      return "memtopo: SIGINT received: stopping after the current batch and writing what was "
             "measured (a second stop signal, a second or more later, ends memtopo at once)\n";
    case SIGTERM:
      return "memtopo: SIGTERM received: stopping after the current batch and writing what was "
             "measured (a second stop signal, a second or more later, ends memtopo at once)\n";
    default:
      return "memtopo: SIGHUP received: stopping after the current batch and writing what was "
             "measured (a second stop signal, a second or more later, ends memtopo at once)\n";
  }
}

void acknowledge(int signal) {
  const char* text = acknowledgement(signal);
  // Best effort: a closed stderr loses the line, nothing else.
  if (g_stderr_is_terminal) {
    [[maybe_unused]] const ssize_t newline = write(STDERR_FILENO, "\n", 1);
  }
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, text, std::strlen(text));
}

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
    acknowledge(signal);
  } else if (first != signal || now - g_first_signal_ns.load() >= kSameRequestNanoseconds) {
    end_by_signal(signal);
  }
  // Counted after the checks: a blocked write of an output gives up on any stop request.
  g_stop_requests.fetch_add(1);
  errno = saved_errno;
}

}  // namespace

void install_interrupt_handler() {
  g_stderr_is_terminal = isatty(STDERR_FILENO) == 1;
  abandon_blocked_writes_on(stop_requests);
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

unsigned stop_requests() {
  return g_stop_requests.load();
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
