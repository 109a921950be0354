#pragma once
// Conversion factors several files need, defined once: a unity build compiles files together,
// where a copy in each file's anonymous namespace would clash.

namespace memtopo {

inline constexpr double kHzPerKhz = 1e3;
inline constexpr double kPercent = 100;  // a fraction times this is a percentage

}  // namespace memtopo
