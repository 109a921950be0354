#pragma once
// A multi-device run (--device all, --device 0,1): each GPU's discovery one after the other,
// every GPU locked for the whole run, then the p2p family over every pair, then one report
// (report/multi_device_report.hpp). docs/multi-gpu.md describes it.
#include <ostream>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace memtopo {

// Returns the process exit code, as run_discovery does.
int run_multi_device(const Options& options, const std::vector<std::string>& arguments,
                     std::ostream& out, std::ostream& err);

}  // namespace memtopo
