#pragma once
// One memtopo per GPU: an exclusive flock(2) on a file named after the GPU's UUID, in /tmp
// (shared by every user) or $MEMTOPO_LOCK_DIR. The kernel releases it when the process ends,
// however it ends, so a crashed run never leaves the GPU locked.
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace memtopo {

// The lock stayed taken for longer than the caller would wait.
class GpuBusyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The user interrupted the wait for the lock.
class LockWaitInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GpuLockWait {
  // How long to wait for another memtopo; nullopt: as long as it takes.
  std::optional<std::chrono::duration<double>> limit;
  // Told once, when the lock is taken, who holds it ("pid 123 since ..." or "unknown").
  std::function<void(const std::string& holder)> on_wait = [](const std::string&) {};
  // Polled while waiting; true ends the wait with LockWaitInterrupted.
  std::function<bool()> interrupted = [] { return false; };
  std::chrono::milliseconds poll_interval{100};
};

class GpuLock {
 public:
  // Takes the lock of the GPU `uuid` in `directory`, waiting as `wait` says. Throws GpuBusyError
  // (naming the holder) when the limit passes, LockWaitInterrupted when interrupted. A lock
  // file that cannot be opened (a read-only directory, a symlink in its place) is no error:
  // the lock is then not held and problem() says why.
  GpuLock(const std::string& uuid, const std::filesystem::path& directory, const GpuLockWait& wait);
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }
  // Why the lock is not held; empty when it is.
  const std::string& problem() const { return problem_; }
  // Seconds spent waiting for another memtopo.
  double waited_seconds() const { return waited_seconds_; }
  // Keeps the lock until the process ends instead of until this object does: the kernel then
  // releases it after the CUDA runtime has torn down the process's context at exit, so that
  // the next memtopo does not find this one still on the GPU.
  void keep_until_exit();

 private:
  void write_holder();

  std::filesystem::path path_;
  int fd_ = -1;
  bool writable_ = false;
  bool keep_until_exit_ = false;
  std::string problem_;
  double waited_seconds_ = 0;
};

// $MEMTOPO_LOCK_DIR when set, else /tmp: one directory every user's memtopo looks in.
std::filesystem::path default_lock_directory();

}  // namespace memtopo
