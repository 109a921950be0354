#include "report/output_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include "model/printable_text.hpp"
#include "report/output_error.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

// Symlinks followed before giving up (the kernel's own limit is 40).
constexpr int kMaxSymlinks = 40;
// Permission bits a replacement file takes over from the file it replaces.
constexpr mode_t kPermissionBits = 07777;
constexpr mode_t kAnyWriteBit = S_IWUSR | S_IWGRP | S_IWOTH;
constexpr mode_t kNewFileMode = 0666;  // before the umask, as a shell's '>' creates files

// How often a blocked write looks again for a reader, room in the pipe, or a stop signal.
constexpr int kRetryMilliseconds = 20;
// The count of stop signals (abandon_blocked_writes_on).
std::atomic<unsigned (*)()> g_stop_requests{nullptr};

// The temporary file being written, for a signal handler (see temporary_output_in_progress).
char g_temporary[PATH_MAX + 64];
std::atomic<bool> g_temporary_active{false};
static_assert(std::atomic<bool>::is_always_lock_free);

[[noreturn]] void fail(const std::string& given, const std::string& reason) {
  throw OutputError("cannot write " + given + ": " + reason);
}

std::string error_text(int error) {
  return std::strerror(error);
}

// Whether a path lies in /proc or /dev/fd, whose links (/dev/stdout -> /proc/self/fd/1) name an
// open file of a process rather than a place in the file system.
bool names_an_open_file(const fs::path& path) {
  const std::string text = path.string();
  return text.rfind("/proc/", 0) == 0 || text.rfind("/dev/fd/", 0) == 0;
}

// Follows `path` through every symlink to the path the data ends up at (which may not exist
// yet). Sets `through_open_file` when a step went through /proc or /dev/fd.
fs::path final_target(const fs::path& path, const std::string& given, bool& through_open_file) {
  fs::path current = path;
  through_open_file = names_an_open_file(current);
  for (int step = 0; step < kMaxSymlinks; ++step) {
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(current, error))) return current;
    const fs::path link = fs::read_symlink(current, error);
    if (error) fail(given, "cannot read the symlink " + printable_text(current.string()));
    current = link.is_absolute() ? link : current.parent_path() / link;
    through_open_file = through_open_file || names_an_open_file(current);
  }
  fail(given, "too many levels of symlinks");
}

// Writes all of `text`; returns why it could not ("" when it could).
std::string write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return error_text(errno);
    if (written == 0) return "the write made no progress";
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return "";
}

fs::path temporary_beside(const fs::path& target) {
  fs::path temporary = target;
  temporary += "." + std::to_string(getpid()) + ".partial";
  return temporary;
}

// Marks `path` as the temporary file a signal handler should remove, or none (nullptr).
void mark_temporary(const fs::path* path) {
  g_temporary_active.store(false);
  if (!path || path->native().size() >= sizeof g_temporary) return;
  std::memcpy(g_temporary, path->c_str(), path->native().size() + 1);
  g_temporary_active.store(true);
}

// Whether a stop signal came since `before` (never without a counter).
bool stopped_since(unsigned before) {
  const auto counter = g_stop_requests.load();
  return counter && counter() != before;
}

unsigned stop_requests_now() {
  const auto counter = g_stop_requests.load();
  return counter ? counter() : 0;
}

// Opens a path written in place without blocking: a FIFO without a reader (ENXIO) is tried
// again until one opens it or a stop signal comes.
int open_in_place(const OutputTarget& target, unsigned stops_before) {
  for (;;) {
    // O_APPEND: /dev/stdout redirected to a file by the shell continues that file.
    const int fd =
        ::open(target.path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) return fd;
    const int error = errno;
    struct stat status {};
    const bool fifo_without_reader =
        error == ENXIO && ::stat(target.path.c_str(), &status) == 0 && S_ISFIFO(status.st_mode);
    if (!fifo_without_reader && error != EINTR) fail(target.given, error_text(error));
    if (stopped_since(stops_before)) {
      fail(target.given, "no reader opened it before the stop signal; not written");
    }
    ::poll(nullptr, 0, kRetryMilliseconds);
  }
}

// write_all for a non-blocking descriptor: waits while it is full, until a stop signal comes.
std::string write_all_waiting(int fd, std::string_view text, unsigned stops_before) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written > 0) {
      text.remove_prefix(static_cast<std::size_t>(written));
      continue;
    }
    if (written < 0 && errno != EAGAIN && errno != EINTR) return error_text(errno);
    if (written == 0) return "the write made no progress";
    if (stopped_since(stops_before))
      return "its reader stopped reading; abandoned at the stop signal";
    pollfd ready{fd, POLLOUT, 0};
    ::poll(&ready, 1, kRetryMilliseconds);
  }
  return "";
}

void write_in_place(const OutputTarget& target, std::string_view text) {
  const unsigned stops_before = stop_requests_now();
  const int fd = open_in_place(target, stops_before);
  const std::string problem = write_all_waiting(fd, text, stops_before);
  const bool closed = ::close(fd) == 0;
  if (!problem.empty()) fail(target.given, problem);
  if (!closed) fail(target.given, error_text(errno));
}

void replace_atomically(const OutputTarget& target, std::string_view text, bool flush_to_disk) {
  const fs::path temporary = temporary_beside(target.path);
  struct stat existing {};
  const bool keep_mode = ::stat(target.path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode);
  mark_temporary(&temporary);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                        kNewFileMode);
  if (fd < 0) {
    mark_temporary(nullptr);
    fail(target.given,
         "cannot create " + printable_text(temporary.string()) + ": " + error_text(errno));
  }
  auto give_up = [&](const std::string& reason) {
    ::close(fd);
    ::unlink(temporary.c_str());
    mark_temporary(nullptr);
    fail(target.given, reason);
  };
  if (const std::string problem = write_all(fd, text); !problem.empty()) give_up(problem);
  if (keep_mode && ::fchmod(fd, existing.st_mode & kPermissionBits) != 0) {
    give_up("cannot keep its permissions: " + error_text(errno));
  }
  if (flush_to_disk && ::fsync(fd) != 0) give_up(error_text(errno));
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    mark_temporary(nullptr);
    fail(target.given, error_text(error));
  }
  if (::rename(temporary.c_str(), target.path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    mark_temporary(nullptr);
    fail(target.given, error_text(error));
  }
  mark_temporary(nullptr);
}

}  // namespace

void check_directory_writable(const fs::path& directory, const std::string& what) {
  const fs::path shown = directory.empty() ? fs::path(".") : directory;
  std::error_code error;
  if (!fs::exists(shown, error)) {
    fail(what, "directory " + printable_text(shown.string()) + " does not exist; create it first");
  }
  if (!fs::is_directory(shown, error)) {
    fail(what, printable_text(shown.string()) + " is not a directory");
  }
  // access() says yes to root on a read-only file system; creating a file is the real test.
  const fs::path probe = shown / (".memtopo-check." + std::to_string(getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    fail(what,
         "no file can be created in " + printable_text(shown.string()) + ": " + error_text(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

OutputTarget prepare_output(const std::string& path) {
  OutputTarget target;
  target.given = printable_text(path);
  bool through_open_file = false;
  target.path = final_target(fs::path(path), target.given, through_open_file);

  struct stat status {};
  // stat() follows links the way the kernel does, /proc's magic ones included.
  if (::stat(path.c_str(), &status) != 0) {
    if (errno != ENOENT) fail(target.given, error_text(errno));
    check_directory_writable(target.path.parent_path(), target.given);
    return target;
  }
  target.exists = true;
  if (S_ISDIR(status.st_mode)) fail(target.given, "it is a directory; name a file");
  if (!S_ISREG(status.st_mode) || through_open_file) {
    // A FIFO, a device, or an open file of a process: written where it is, never replaced.
    if (::access(path.c_str(), W_OK) != 0) fail(target.given, error_text(errno));
    target.path = path;
    target.replace_atomically = false;
    return target;
  }
  if (::access(target.path.c_str(), W_OK) != 0 || (status.st_mode & kAnyWriteBit) == 0) {
    fail(target.given,
         "the file is read-only; memtopo does not replace it (make it writable, or name another "
         "file)");
  }
  check_directory_writable(target.path.parent_path(), target.given);
  return target;
}

void write_output(const OutputTarget& target, std::string_view text, bool flush_to_disk) {
  if (target.replace_atomically) {
    replace_atomically(target, text, flush_to_disk);
  } else {
    write_in_place(target, text);
  }
}

void abandon_blocked_writes_on(unsigned (*stop_requests)()) {
  g_stop_requests.store(stop_requests);
}

const char* temporary_output_in_progress() {
  return g_temporary_active.load() ? g_temporary : nullptr;
}

}  // namespace memtopo
