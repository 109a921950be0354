#include "cli/progress_display.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "model/printable_text.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

constexpr std::size_t kBarCells = 10;
constexpr std::size_t kDefaultWidth = 80;
// The narrowest line still drawn whole; below it the line is cut.
constexpr std::size_t kMinDetailWidth = 12;
constexpr auto kRedrawInterval = std::chrono::seconds(1);
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kPlain = "\x1b[0m";
constexpr const char* kEraseToEnd = "\x1b[K";

std::string bar(std::size_t done, std::size_t total) {
  const std::size_t filled = total == 0 ? 0 : std::min(kBarCells, done * kBarCells / total);
  return "[" + std::string(filled, '#') + std::string(kBarCells - filled, '-') + "]";
}

}  // namespace

std::optional<double> estimate_remaining_seconds(const ProgressState& state) {
  if (state.index == 0 || state.total == 0) return std::nullopt;
  const double mean = state.finished_seconds / static_cast<double>(state.index);
  const double rest_of_this = std::max(0.0, mean - state.probe_elapsed_seconds);
  const std::size_t after_this = state.total > state.index + 1 ? state.total - state.index - 1 : 0;
  return rest_of_this + mean * static_cast<double>(after_this);
}

std::string format_duration(double seconds) {
  const long total = std::lround(std::max(0.0, seconds));
  const long hours = total / 3600;
  const long minutes = total / 60 % 60;
  const long secs = total % 60;
  char text[32];
  if (hours > 0) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", hours, minutes, secs);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", minutes, secs);
  }
  return text;
}

std::string render_progress_line(const ProgressState& state, std::size_t width, bool color) {
  const std::string head = bar(state.index, state.total) + " " + std::to_string(state.index + 1) +
                           "/" + std::to_string(state.total) + " ";
  const auto rest = estimate_remaining_seconds(state);
  const std::string tail = "  " + format_duration(state.elapsed_seconds) +
                           (rest ? ", ~" + format_duration(*rest) + " left" : ", estimating");
  const std::string probe = printable_text(state.probe);
  std::string detail = printable_text(state.detail);
  const std::size_t fixed = display_width(head) + display_width(probe) + display_width(tail);
  if (!detail.empty()) {
    const std::size_t room = width > fixed + 2 ? width - fixed - 2 : 0;
    detail = room >= kMinDetailWidth ? ": " + shorten_to_width(detail, room) : "";
  }
  std::string line = head + (color ? kBold + probe + kPlain : probe) + detail + tail;
  if (fixed > width) {  // a very narrow terminal: the plain text, cut
    line = shorten_to_width(head + probe + tail, width);
  }
  return line;
}

TerminalAbilities terminal_abilities(bool is_terminal, const char* term, const char* no_color) {
  TerminalAbilities abilities;
  abilities.redraw = is_terminal && !(term && std::strcmp(term, "dumb") == 0);
  abilities.color = abilities.redraw && !(no_color && *no_color);
  return abilities;
}

std::size_t terminal_width_of(int fd, std::size_t otherwise) {
  if (const char* columns = std::getenv("COLUMNS")) {
    const long value = std::strtol(columns, nullptr, 10);
    if (value > 0) return static_cast<std::size_t>(value);
  }
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return otherwise;
}

std::size_t terminal_width() {
  return terminal_width_of(STDERR_FILENO, kDefaultWidth);
}

ProgressDisplay::ProgressDisplay(std::ostream& err, TerminalAbilities abilities, std::size_t total,
                                 std::size_t width)
    : err_(err), abilities_(abilities), width_(width) {
  state_.total = total;
  if (abilities_.redraw) ticker_ = std::thread([this] { tick(); });
}

ProgressDisplay::~ProgressDisplay() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    clear_locked();
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void ProgressDisplay::step(std::size_t index, const std::string& probe, double finished_seconds,
                           const std::string& line) {
  std::lock_guard lock(mutex_);
  if (!abilities_.redraw) {
    err_ << "memtopo: " << line << "\n";
    return;
  }
  if (index != state_.index || state_.probe.empty()) probe_start_ = Clock::now();
  state_.index = index;
  state_.probe = probe;
  state_.finished_seconds = finished_seconds;
  // The runner's "[i/n] id: description" and a probe's "id: step" both start with what the
  // line already shows.
  std::string detail = line;
  if (detail.rfind("[", 0) == 0) detail.erase(0, detail.find("] ") + 2);
  if (detail.rfind(probe + ": ", 0) == 0) detail.erase(0, probe.size() + 2);
  state_.detail = detail;
  draw_locked();
}

void ProgressDisplay::clear() {
  std::lock_guard lock(mutex_);
  clear_locked();
}

void ProgressDisplay::draw_locked() {
  const auto now = Clock::now();
  state_.elapsed_seconds = std::chrono::duration<double>(now - start_).count();
  state_.probe_elapsed_seconds = std::chrono::duration<double>(now - probe_start_).count();
  // One column short: a line that fills the terminal wraps on some of them.
  err_ << "\r" << render_progress_line(state_, width_ > 1 ? width_ - 1 : width_, abilities_.color)
       << kEraseToEnd << std::flush;
  drawn_ = true;
}

void ProgressDisplay::clear_locked() {
  if (!drawn_) return;
  err_ << "\r" << kEraseToEnd << std::flush;
  drawn_ = false;
}

void ProgressDisplay::tick() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kRedrawInterval);
    if (!stopping_ && drawn_) draw_locked();
  }
}

}  // namespace memtopo
