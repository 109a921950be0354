#pragma once
// The console's shared-memory banks section: the layout and what each conflict degree costs.
#include <cstddef>
#include <ostream>

#include "model/topology.hpp"
#include "report/footnotes.hpp"

namespace memtopo {

// When shared.conflict_latency exists: a title, the layout of shared.banks and
// shared.bank_width with the cost of one more pass, and the table of degrees (p50 cycles minus
// the timing overhead ± standard deviation), in columns of kBankRowsPerColumn degrees; an
// inconclusive or low-confidence table gets its note. Nothing otherwise.
void render_shared_banks(std::ostream& out, const Topology& topology, Footnotes& notes,
                         std::size_t max_width);

}  // namespace memtopo
