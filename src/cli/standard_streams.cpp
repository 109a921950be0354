#include "cli/standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <iostream>

#include "cli/exit_codes.hpp"

namespace memtopo {
namespace {

// Standard output when descriptor 1 was closed: every write fails, as it would have, at the
// moment it is made (a command that writes nothing there is not told off).
class ClosedOutput : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

}  // namespace

void guard_standard_streams() {
  std::signal(SIGPIPE, SIG_IGN);
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() takes the lowest free descriptor: this one.
    const int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (opened != fd && opened >= 0) ::close(opened);
    if (fd == STDOUT_FILENO) {
      static ClosedOutput closed;
      std::cout.rdbuf(&closed);
    }
  }
}

int check_standard_output(int code, std::ostream& err) {
  std::cout.flush();
  if (std::cout || code == exit_code::cannot_write || code == exit_code::internal_error) {
    return code;
  }
  err << "memtopo: cannot write to standard output (closed, full, or a pipe whose reader has "
         "gone)\n";
  return exit_code::cannot_write;
}

}  // namespace memtopo
