#include "backend/cuda/block_rates.hpp"

namespace memtopo {

double summed_block_rate(std::span<const unsigned long long> block_ns, double bytes_per_block) {
  constexpr double kNsPerSecond = 1e9;
  double rate = 0;
  for (const unsigned long long ns : block_ns) {
    if (ns > 0) rate += bytes_per_block * kNsPerSecond / static_cast<double>(ns);
  }
  return rate;
}

}  // namespace memtopo
