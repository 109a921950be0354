#pragma once
// The properties of a pair (model/p2p.hpp) from what the backend returned: a value, its unit,
// method, spread, evidence and a confidence computed by analysis/confidence.hpp's rules.
#include <string>

#include "backend/p2p.hpp"
#include "model/topology.hpp"

namespace memtopo {

Property peer_access_property(bool accessible, bool host, std::string_view backend_kind);
Property link_property(const PeerLink& link, bool host, std::string_view backend_kind);
// `name`: p2p_property::kLatency (a chain across pages, beyond both L2s) or kLatencyOnePage (a
// chain inside one 2 MiB page, held in the memory's L2 after the warm group).
Property latency_property(const std::string& name, const RemoteChaseSpec& spec,
                          const RemoteChaseResult& result);
// `name` is one of p2p_property's bandwidth names; `sizing_rate` the first short transfer's
// rate, which planned `spec`'s buffer and passes (transfer_plan.hpp), kept as evidence.
Property bandwidth_property(const std::string& name, const TransferSpec& spec,
                            const TransferResult& result, double sizing_rate);

// The text a link shows: "NVLink x18 (v4)", "PCIe gen5 x16", "none", "unknown".
std::string link_text(const PeerLink& link);

}  // namespace memtopo
