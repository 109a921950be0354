#pragma once
// Runs a program the way a user would, capturing stdout, stderr and the exit code.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace memtopo::testing {

struct ProcessResult {
  int exit_code = -1;    // -1 when it did not exit normally (killed by a signal)
  int term_signal = 0;   // the signal that ended it, when one did
  long max_rss_kib = 0;  // its peak resident memory
  double seconds = 0;    // from start to exit
  std::string out;
  std::string err;
};

class Subprocess {
 public:
  // `environment` entries ("NAME=value") are added to (or replace) this process's environment.
  explicit Subprocess(const std::vector<std::string>& argv,
                      const std::vector<std::string>& environment = {});
  ~Subprocess();  // kills a process still running and removes the capture files
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // What it wrote to stderr so far (for waiting on a progress line).
  std::string err_so_far() const;
  // What it wrote to stdout so far (for waiting on the console report).
  std::string out_so_far() const;
  void send_signal(int signal) const;
  ProcessResult wait();

 private:
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point started_;
  std::string out_path_;
  std::string err_path_;
};

inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& environment = {}) {
  return Subprocess(argv, environment).wait();
}

}  // namespace memtopo::testing
