#include "cli/lock_holder.hpp"

#include <unistd.h>

#include <ctime>

namespace memtopo {
namespace {

// The holder's line is short ("pid 123 since 2026-01-01T00:00:00Z").
constexpr std::size_t kHolderTextBytes = 128;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

std::string read_lock_holder(int fd) {
  char text[kHolderTextBytes] = {};
  const ssize_t bytes = pread(fd, text, sizeof text - 1, 0);
  std::string holder = bytes > 0 ? std::string(text, static_cast<std::size_t>(bytes)) : "";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
  for (char& c : holder) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return holder.empty() ? "holder unknown" : holder;
}

void write_lock_holder(int fd) {
  const std::string holder = "pid " + std::to_string(getpid()) + " since " + utc_now() + "\n";
  if (ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = pwrite(fd, holder.data(), holder.size(), 0);
  }
}

}  // namespace memtopo
