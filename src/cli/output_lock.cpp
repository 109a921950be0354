#include "cli/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "cli/lock_holder.hpp"
#include "model/printable_text.hpp"
#include "report/output_error.hpp"

namespace memtopo {
namespace {

constexpr mode_t kLockFileMode = 0644;
// A lock file removed by its holder between our open and our flock is opened again; more than
// a few rounds means something else is going on.
constexpr int kMaxAttempts = 8;

// Whether `fd` is still the file at `path` (its holder may have removed it, and a third run
// created a new one, since we opened it).
bool still_there(int fd, const std::filesystem::path& path) {
  struct stat opened {};
  struct stat named {};
  return ::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 &&
         opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace

OutputLocks::~OutputLocks() {
  // Removed while still locked, then let go: a run waiting to open it opens a new file.
  for (const Held& held : held_) {
    ::unlink(held.path.c_str());
    ::close(held.fd);
  }
}

void OutputLocks::lock_file(const std::optional<OutputTarget>& target) {
  // A FIFO or a device is written once, in place: nothing to lose to a second writer's rename.
  if (!target || !target->replace_atomically) return;
  const std::filesystem::path& path = target->path;
  lock(path.parent_path() / ("." + path.filename().string() + ".memtopo-lock"), target->given);
}

void OutputLocks::lock_directory(const std::filesystem::path& directory, const std::string& shown) {
  lock(directory / ".memtopo-lock", shown);
}

void OutputLocks::lock(const std::filesystem::path& lock_path, const std::string& shown) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    // O_NOFOLLOW: a symlink planted under the lock's name is refused, never followed.
    const int fd =
        ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, kLockFileMode);
    if (fd < 0) return;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = read_lock_holder(fd);
      ::close(fd);
      if (error != EWOULDBLOCK) return;
      throw OutputError("cannot write " + shown + ": another memtopo (" + holder +
                        ") is writing it; wait until it ends, or name another (lock file " +
                        printable_text(lock_path.string()) + ")");
    }
    if (still_there(fd, lock_path)) {
      write_lock_holder(fd);
      held_.push_back({lock_path, fd});
      return;
    }
    ::close(fd);
  }
}

}  // namespace memtopo
