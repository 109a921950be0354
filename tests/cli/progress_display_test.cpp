// The progress display (cli/progress_display.hpp): the estimate's rule, the line's fit to the
// terminal, colour and redraw only where the terminal allows, plain lines elsewhere.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/progress_display.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

ProgressState state_at(std::size_t index, double finished, double probe_elapsed) {
  ProgressState state;
  state.index = index;
  state.total = 10;
  state.probe = "l1.size";
  state.detail = "doubling 64 KiB .. 512 KiB (4 footprints)";
  state.finished_seconds = finished;
  state.probe_elapsed_seconds = probe_elapsed;
  state.elapsed_seconds = finished + probe_elapsed;
  return state;
}

TEST(ProgressDisplay, EstimateIsTheMeanOfFinishedProbes) {
  EXPECT_FALSE(estimate_remaining_seconds(state_at(0, 0, 5)));  // nothing finished yet
  // 4 probes in 8 s: 2 s each; the 5th has run 0.5 s, 5 more follow: 1.5 + 10.
  EXPECT_DOUBLE_EQ(*estimate_remaining_seconds(state_at(4, 8, 0.5)), 11.5);
  // A probe running longer than the mean adds nothing for itself.
  EXPECT_DOUBLE_EQ(*estimate_remaining_seconds(state_at(4, 8, 30)), 10);
  EXPECT_DOUBLE_EQ(*estimate_remaining_seconds(state_at(9, 18, 0)), 2);  // the last one
}

TEST(ProgressDisplay, Durations) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(65.4), "1:05");
  EXPECT_EQ(format_duration(3723), "1:02:03");
}

TEST(ProgressDisplay, LineShowsPhaseCountElapsedAndEstimate) {
  const std::string line = render_progress_line(state_at(4, 8, 0.5), 100, /*color=*/false);
  EXPECT_EQ(line,
            "[####------] 5/10 l1.size: doubling 64 KiB .. 512 KiB (4 footprints)  0:09, ~0:12 "
            "left");
  EXPECT_NE(render_progress_line(state_at(0, 0, 1), 100, false).find("estimating"),
            std::string::npos);
}

TEST(ProgressDisplay, LineFitsTheWidth) {
  for (std::size_t width : {200u, 80u, 50u, 40u, 20u}) {
    SCOPED_TRACE(width);
    const std::string line = render_progress_line(state_at(4, 8, 0.5), width, false);
    EXPECT_LE(display_width(line), width) << line;
    EXPECT_NE(line.find(width >= 40 ? "l1.size" : "[####"), std::string::npos) << line;
  }
}

TEST(ProgressDisplay, ColourOnlyWhereAllowed) {
  EXPECT_NE(render_progress_line(state_at(1, 1, 0), 80, true).find("\x1b[1ml1.size"),
            std::string::npos);
  EXPECT_EQ(render_progress_line(state_at(1, 1, 0), 80, false).find('\x1b'), std::string::npos);

  const TerminalAbilities terminal = terminal_abilities(true, "xterm-256color", nullptr);
  EXPECT_TRUE(terminal.redraw);
  EXPECT_TRUE(terminal.color);
  EXPECT_FALSE(terminal_abilities(true, "xterm", "1").color);  // NO_COLOR
  EXPECT_TRUE(terminal_abilities(true, "xterm", "").color);    // NO_COLOR empty: not set
  const TerminalAbilities dumb = terminal_abilities(true, "dumb", nullptr);
  EXPECT_FALSE(dumb.redraw);
  EXPECT_FALSE(dumb.color);
  EXPECT_FALSE(terminal_abilities(false, "xterm", nullptr).redraw);  // a pipe or a file
}

TEST(ProgressDisplay, PlainLinesWhenNotATerminal) {
  std::ostringstream err;
  {
    ProgressDisplay display(err, terminal_abilities(false, "xterm", nullptr), 3, 80);
    display.step(0, "l1.size", 0, "[1/3] l1.size: L1 data cache size");
    display.step(0, "l1.size", 0, "l1.size: doubling 1 KiB");
  }
  EXPECT_EQ(err.str(),
            "memtopo: [1/3] l1.size: L1 data cache size\nmemtopo: l1.size: doubling 1 KiB\n");
}

TEST(ProgressDisplay, RedrawsOneLineAndClearsIt) {
  std::ostringstream err;
  {
    ProgressDisplay display(err, terminal_abilities(true, "xterm", "1"), 3, 80);
    display.step(0, "l1.size", 0, "[1/3] l1.size: L1 data cache size");
    display.step(1, "l1.line", 0.5, "l1.line: classifying 11 strides");
  }
  const std::string text = err.str();
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;  // never a new line
  EXPECT_NE(text.find("\r[----------] 1/3 l1.size: L1 data cache size"), std::string::npos);
  EXPECT_NE(text.find("\r[###-------] 2/3 l1.line: classifying 11 strides"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K");  // cleared at the end
}

}  // namespace
}  // namespace memtopo
