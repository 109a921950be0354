#pragma once
// Runs the p2p probe family over every ordered pair of GPUs (a != b) and every GPU with the
// host: peer access, link, latency, SM and copy-engine bandwidth (docs/multi-gpu.md).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/p2p.hpp"
#include "model/p2p.hpp"
#include "probes/p2p/p2p_selection.hpp"

namespace memtopo {

struct P2pContext {
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  std::function<bool()> interrupted = [] { return false; };
  std::uint64_t seed = 1;
};

// `devices` lists the backend's GPUs in order (position 0 .. n-1); `l2_bytes` each one's L2 (the
// latency chain spans beyond the larger of reader's and memory's). A pair the devices cannot
// measure gets its property inconclusive with the reason; a probe whose pairs all threw
// unexpectedly is "failed". Stops between pairs when `interrupted` says so (the report then
// lists the probes not run).
P2pReport run_p2p(PeerBackend& backend, const P2pSelection& selection,
                  const std::vector<P2pDevice>& devices, const std::vector<std::uint64_t>& l2_bytes,
                  const P2pContext& context);

}  // namespace memtopo
