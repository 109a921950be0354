#pragma once
// Progress on stderr while a discovery runs. On a terminal: one line, redrawn in place, with
// the probe, i/n, a bar, the time so far and an estimate of the rest, cleared at the end.
// Elsewhere (a pipe, a file, TERM=dumb): the plain "memtopo: ..." lines, one per step, as
// before. --quiet shows neither. docs/progress.md describes both.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

#include "run/clock.hpp"

namespace memtopo {

// Where the run stands; what render_progress_line() draws.
struct ProgressState {
  std::size_t index = 0;             // the probe running now, 0-based
  std::size_t total = 0;             // probes in the run
  std::string probe;                 // its id
  std::string detail;                // the probe's latest step ("doubling 64 KiB")
  double elapsed_seconds = 0;        // since the first probe started
  double probe_elapsed_seconds = 0;  // since this probe started
  double finished_seconds = 0;       // the probes before this one, together
};

// The rest of the run: the mean time of the probes finished so far, for this probe (less what
// it has run already, never below 0) and for each one after it. Unknown (nullopt) until a
// probe has finished: the first probes' times differ by orders of magnitude from nothing.
std::optional<double> estimate_remaining_seconds(const ProgressState& state);

// "1:05", "12:00", "1:02:03".
std::string format_duration(double seconds);

// The terminal line, at most `width` columns, without a newline or control characters but the
// bold of the probe id when `color`: "[####------] 12/56 l1.size: doubling 64 KiB  0:05,
// ~0:42 left". The detail is shortened first, then dropped, when the line is too wide.
std::string render_progress_line(const ProgressState& state, std::size_t width, bool color);

// What the stderr stream can do: redraw one line (a terminal that is not TERM=dumb) and
// colour it (also not NO_COLOR, https://no-color.org).
struct TerminalAbilities {
  bool redraw = false;
  bool color = false;
};
TerminalAbilities terminal_abilities(bool is_terminal, const char* term, const char* no_color);

// The display the discovery feeds: step() for every progress line, probe_started() when the
// runner moves on. With redraw, a thread redraws the line every second so that the clock moves
// during a long step; its destructor clears the line.
class ProgressDisplay {
 public:
  ProgressDisplay(std::ostream& err, TerminalAbilities abilities, std::size_t total,
                  std::size_t width);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // `index` is the probe running now, `finished_seconds` the time of those before it.
  void step(std::size_t index, const std::string& probe, double finished_seconds,
            const std::string& line);
  // Clears the line before another message goes to stderr (the next step redraws it).
  void clear();

 private:
  void draw_locked();
  void clear_locked();
  void tick();

  std::ostream& err_;
  TerminalAbilities abilities_;
  std::size_t width_;
  ProgressState state_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point probe_start_ = start_;
  bool drawn_ = false;
  bool stopping_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
};

// The width of the terminal on stderr (COLUMNS, else the ioctl, else 80).
std::size_t terminal_width();
// The same for the terminal on file descriptor `fd`, `otherwise` where there is none.
std::size_t terminal_width_of(int fd, std::size_t otherwise);

}  // namespace memtopo
