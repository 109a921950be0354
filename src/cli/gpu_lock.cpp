#include "cli/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "cli/lock_holder.hpp"
#include "run/clock.hpp"

namespace memtopo {
namespace {


constexpr const char* kDefaultLockDirectory = "/tmp";
// Anyone may open the lock file to lock it and write their pid into it: the lock is shared by
// every user of the GPU.
constexpr mode_t kLockFileMode = 0666;

// The UUID's letters, digits and dashes: a file name no UUID can turn into a path.
std::string file_safe(const std::string& uuid) {
  std::string name;
  for (const char c : uuid) {
    const bool safe = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    name += safe || c == '-' ? c : '_';
  }
  return name;
}

}  // namespace

std::filesystem::path default_lock_directory() {
  const char* directory = std::getenv("MEMTOPO_LOCK_DIR");
  return directory && *directory ? directory : kDefaultLockDirectory;
}

GpuLock::GpuLock(const std::string& uuid, const std::filesystem::path& directory,
                 const GpuLockWait& wait)
    : path_(directory / ("memtopo-" + file_safe(uuid) + ".lock")) {
  // O_NOFOLLOW: a symlink planted in /tmp under this name is refused, never followed.
  fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, kLockFileMode);
  writable_ = fd_ >= 0;
  if (fd_ < 0 && errno == EACCES) fd_ = open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) {
    problem_ = "cannot open the lock file " + path_.string() + ": " + std::strerror(errno);
    return;
  }
  struct stat status {};
  if (fstat(fd_, &status) == 0 && status.st_uid == geteuid()) {
    fchmod(fd_, kLockFileMode);  // umask took the others' write permission; give it back
  }

  const auto start = Clock::now();
  bool told = false;
  while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      problem_ = "cannot lock " + path_.string() + ": " + std::strerror(errno);
      close(fd_);
      fd_ = -1;
      return;
    }
    const std::string holder = read_lock_holder(fd_);
    if (!told) {
      wait.on_wait(holder);
      told = true;
    }
    const auto waited = Clock::now() - start;
    if (wait.limit && waited >= *wait.limit) {
      close(fd_);
      fd_ = -1;
      throw GpuBusyError("the GPU " + uuid + " is still held by another memtopo (" + holder +
                         "; lock file " + path_.string() + ")");
    }
    if (wait.interrupted()) {
      close(fd_);
      fd_ = -1;
      throw LockWaitInterrupted("interrupted while waiting for the GPU " + uuid);
    }
    std::this_thread::sleep_for(wait.poll_interval);
  }
  if (told) waited_seconds_ = seconds_since(start);
  write_holder();
}

GpuLock::~GpuLock() {
  if (fd_ >= 0 && !keep_until_exit_) close(fd_);
}

void GpuLock::keep_until_exit() {
  keep_until_exit_ = true;
}

void GpuLock::write_holder() {
  if (writable_) write_lock_holder(fd_);
}

}  // namespace memtopo
