#pragma once
// Runs the p2p probe family over every ordered pair of GPUs (a != b) and every GPU with the
// host: peer access, link, latency, SM and copy-engine bandwidth (docs/multi-gpu.md).
#include <cstdint>
#include <vector>

#include "model/p2p.hpp"
#include "probes/p2p/p2p_selection.hpp"
#include "run/context.hpp"

namespace memtopo {

// What the family needs of each GPU: its L2 (the latency chain spans beyond the larger of the
// reader's and the memory's) and its memory (a copy's buffers take at most a share of it; 0:
// unknown, the buffers keep their first size).
struct P2pMemorySizes {
  std::uint64_t l2_bytes = 0;
  std::uint64_t memory_bytes = 0;
};

// Measures through the engine's context: the pairs' access and links are asked of
// context.peers() (Skipped in a run without peer GPUs), every experiment goes through
// context.run_remote_chase and run_transfer (labelled with the probe's id), and progress, the
// stop signal and the seed are the context's. `devices` lists the peer GPUs in order (position
// 0 .. n-1), `sizes` each one's L2 and memory. A pair the devices cannot measure gets its property
// inconclusive with the reason; a probe whose pairs all threw unexpectedly is "failed". A stop
// signal ends the family after the experiment it interrupted (the report then lists the probes not
// run).
P2pReport run_p2p(const RunContext& context, const P2pSelection& selection,
                  const std::vector<P2pDevice>& devices, const std::vector<P2pMemorySizes>& sizes);

}  // namespace memtopo
