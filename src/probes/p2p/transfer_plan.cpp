#include "probes/p2p/transfer_plan.hpp"

#include <algorithm>
#include <cmath>

namespace memtopo {
namespace {

// `bytes` rounded up to whole kBufferGranule, as a count of bytes (saturating at `limit`).
std::uint64_t whole_granules(double bytes, std::uint64_t limit) {
  const double granules = std::ceil(bytes / static_cast<double>(kBufferGranule));
  if (granules * static_cast<double>(kBufferGranule) >= static_cast<double>(limit)) return limit;
  return static_cast<std::uint64_t>(granules) * kBufferGranule;
}

}  // namespace

TransferPlan plan_transfer(TransferEngine engine, std::uint64_t base_bytes, double sizing_rate,
                           std::uint64_t max_bytes) {
  TransferPlan plan{base_bytes, 1};
  if (!(sizing_rate > 0) || !std::isfinite(sizing_rate) || base_bytes == 0) return plan;
  const std::uint64_t largest = std::max(base_bytes, max_bytes);
  if (engine == TransferEngine::copy_engine) {
    plan.bytes = std::max(base_bytes, whole_granules(sizing_rate * kCopySeconds, largest));
  }
  const double repetition_seconds =
      engine == TransferEngine::copy_engine ? kCopyRepetitionSeconds : kSmRepetitionSeconds;
  const double passes =
      std::ceil(sizing_rate * repetition_seconds / static_cast<double>(plan.bytes));
  plan.passes = static_cast<std::uint32_t>(std::clamp(passes, 1.0, double{kMaxPasses}));
  return plan;
}

}  // namespace memtopo
