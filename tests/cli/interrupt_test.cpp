// The stop-signal handler's rules, in a forked child so that its signals and process-wide state
// stay there: the same signal twice within a second is one request; a later or a different
// second signal ends the process at once, by that signal.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <functional>

#include "cli/discovery.hpp"
#include "cli/interrupt.hpp"

namespace memtopo {
namespace {

// Exit codes of the child that say what it saw.
constexpr int kStillRunningAndAsked = 0;
constexpr int kNotAsked = 1;

void sleep_seconds(double seconds) {
  timespec duration{static_cast<time_t>(seconds),
                    static_cast<long>((seconds - static_cast<time_t>(seconds)) * 1e9)};
  while (nanosleep(&duration, &duration) != 0) {
  }
}

// Runs `signals` in a child with the handler installed; returns its wait status.
int status_of_child(const std::function<void()>& signals) {
  const pid_t child = fork();
  if (child == 0) {
    install_interrupt_handler();
    signals();
    _exit(interrupt_requested() ? kStillRunningAndAsked : kNotAsked);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return status;
}

TEST(InterruptHandler, TheFirstSignalAsksTheRunToStop) {
  const int status = status_of_child([] {
    raise(SIGTERM);
    if (interrupt_signal() != SIGTERM) _exit(kNotAsked);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kStillRunningAndAsked);
}

TEST(InterruptHandler, TheSameSignalAgainWithinASecondIsTheSameRequest) {
  const int status = status_of_child([] {
    raise(SIGINT);
    sleep_seconds(0.2);
    raise(SIGINT);
  });
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), kStillRunningAndAsked);
}

TEST(InterruptHandler, TheSameSignalAfterASecondEndsTheProcess) {
  const int status = status_of_child([] {
    raise(SIGINT);
    sleep_seconds(1.1);
    raise(SIGINT);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST(InterruptHandler, AnotherSignalEndsTheProcessAtOnce) {
  const int status = status_of_child([] {
    raise(SIGTERM);
    raise(SIGHUP);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGHUP);
}

// The run is complete (all its probes measured) when the signal comes during the final write:
// the exit code is still the signal's (a SIGHUP during a p2p run's final write gave 0).
TEST(InterruptHandler, ASignalAfterTheMeasurementsStillGivesItsExitCode) {
  const pid_t child = fork();
  if (child == 0) {
    install_interrupt_handler();
    raise(SIGHUP);
    Topology complete;
    complete.run.probes.push_back({"l1.size", "ok", ""});
    _exit(outcome_exit_code(complete.run, complete.run.probes, Options{},
                            /*write_failed=*/false));
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 129);
}

}  // namespace
}  // namespace memtopo
