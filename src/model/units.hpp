#pragma once
// Human-readable numbers for the console: binary byte units, cycles, times, rates, clocks.
// Reporters share these so that one quantity reads the same in every section.
#include <string>

#include "model/topology.hpp"

namespace memtopo {

// `value` with at most `max_decimals` decimals, trailing zeros dropped: 16.14, 128, 0.5.
std::string format_number(double value, int max_decimals);

// 128 B, 32 KiB, 16.14 KiB, 50 MiB, 79.1 GiB (binary units, as caches are sized).
std::string format_bytes(double bytes);
// 12 ns, 1.5 us, 2.31 s.
std::string format_seconds(double seconds);
// Decimal units, as bandwidth is quoted: 850 MB/s, 3350.2 GB/s.
std::string format_rate(double bytes_per_second);
// 1755 MHz.
std::string format_clock_khz(double khz);
// 13000 -> "13.0" (CUDA encodes versions as 1000 * major + 10 * minor).
std::string format_cuda_version(int version);

// A property value in its unit, without source or spread: "32 KiB", "33 cy", "lru", "tex, ro".
// "?" for a null value.
std::string format_value(const nlohmann::json& value, const std::string& unit);

}  // namespace memtopo
