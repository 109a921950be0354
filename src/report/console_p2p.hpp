#pragma once
// The multi-GPU section of the console: one matrix per p2p property (rows: the acting GPU,
// columns: the memory it works on, every GPU then the host), then notes, the p2p probes'
// outcomes and timings. Fits 120 columns for 8 GPUs.
#include <string>

#include "model/p2p.hpp"

namespace memtopo {

std::string render_p2p_console(const P2pReport& report);

}  // namespace memtopo
