#pragma once
// shared.banks and shared.bank_width: the stride method's sweep (analysis/banks.hpp) and the
// bank layout that explains it.
#include "probes/core/probe.hpp"

namespace memtopo {

// Runs the sweep, infers the layout and writes shared.banks, with everything the width and the
// conflict ladder need in its evidence.
void measure_bank_layout(ProbeContext& ctx);

// Writes shared.bank_width from shared.banks' evidence (no measurement of its own). Throws
// ProbeSkipped when shared.banks left no sweep.
void write_bank_width(ProbeContext& ctx);

}  // namespace memtopo
