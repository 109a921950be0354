#pragma once
// <element>.shared_with (thesis 004, 4.5): which SM-local caches hold their lines in one array.
// For an ordered pair (A, B): warm A's chase, sweep through more than B's capacity on B's load
// path, then time A again. A's loads turning into misses (against the same chase without a
// sweep and against a control sweep on cg, which reaches neither) means B's loads evicted A's
// lines: A and B share storage. Every pair is measured in one set of concurrent batches, the
// relation is made symmetric and checked for transitivity, and each element reports the ids it
// shares with. One probe per row of sm_cache_elements(); the first to run measures the whole
// relation and writes every element's finding, the others find theirs already there.
#include <string>
#include <vector>

#include "probes/core/probe.hpp"
#include "probes/core/sm_caches.hpp"

namespace memtopo {

class SharingProbe : public Probe {
 public:
  explicit SharingProbe(SmCacheElement target) : target_(std::move(target)) {}
  std::string id() const override { return target_.element + ".shared_with"; }
  std::string description() const override;
  std::vector<std::string> needs() const override { return registered_size_probes(); }
  void run(ProbeContext& ctx) override;

 private:
  SmCacheElement target_;
};

// One SharingProbe per row of sm_cache_elements().
std::vector<std::unique_ptr<Probe>> sharing_probes();

}  // namespace memtopo
