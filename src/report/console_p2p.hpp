#pragma once
// The multi-GPU section of the console: one matrix per p2p property (rows: the acting GPU,
// columns: the memory it works on, every GPU then the host), then notes, the p2p probes'
// outcomes and timings. Fits 120 columns for 8 GPUs.
#include <string>
#include <vector>

#include "model/p2p.hpp"

namespace memtopo {

std::string render_p2p_console(const P2pReport& report);

// The matrices every p2p view shows, in order: a property and its title (unit included).
struct P2pMatrixView {
  const char* property;
  const char* title;
};
const std::vector<P2pMatrixView>& p2p_matrix_views();
// A cell's number or word as the matrices show it: "yes", "NV18", "PCIe5 x16", ns, GB/s.
std::string p2p_value_text(const Property& property);
std::string p2p_gpu_label(const P2pDevice& device);  // "GPU 3"
// Whether any pair has property `name` (a matrix is shown only then).
bool p2p_has_property(const P2pReport& report, const char* name);

}  // namespace memtopo
