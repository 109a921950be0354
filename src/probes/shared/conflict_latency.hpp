#pragma once
// shared.conflict_latency: what a shared-memory access costs at each conflict degree.
#include "probes/core/probe.hpp"

namespace memtopo {

// Runs the conflict ladder on the layout of shared.banks and shared.bank_width: for each degree
// d of 1..32, d distinct words one bank-row apart (all in one bank), the other lanes sharing
// the last; writes one row per degree (p50 cycles minus the timing overhead, with spread).
// Without a conclusive layout the finding is inconclusive.
void measure_conflict_latency(ProbeContext& ctx);

}  // namespace memtopo
