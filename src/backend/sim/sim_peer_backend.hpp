#pragma once
// The p2p interface (backend/p2p.hpp) on a simulated description's "multi_gpu" part: every GPU
// is the described device; links answer with the described latency and rates, plus the
// described relative jitter, seeded and reproducible.
#include <memory>
#include <string>

#include "backend/p2p.hpp"

namespace memtopo {

// The description without "multi_gpu" is one GPU without a host link. Throws DescriptionError.
std::unique_ptr<PeerBackend> make_sim_peer_backend_from_file(const std::string& path);
std::unique_ptr<PeerBackend> make_sim_peer_backend_from_text(const std::string& json_text,
                                                             const std::string& origin);

}  // namespace memtopo
