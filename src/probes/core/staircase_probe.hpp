#pragma once
// One staircase probe for every multi-level question: a table row says which load path is swept,
// over which footprints, how the chain is laid out, and what the steps it finds mean (constant
// L1 and L1.5 sizes, the L2 size and a step inside it, TLB reaches). The sweep
// (staircase_sweep.hpp) is reduced, cut at its change points (analysis/staircase) and every step
// refined by a section search between the two footprints that bracket it; one file per question
// turns the steps into findings (staircase_rows.hpp).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/experiment.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

// What the steps of a row's staircase mean, and so how the row plans and reports.
enum class StaircaseQuestion {
  constant_caches,  // step k ends constant cache k: its size; level k: its latency
  l2_and_dram,      // the last step ends L2 (l2.size); earlier ones are segments inside it
  tlb_reach,        // TLB levels: reach, entries, page, ways, sets, miss penalty (tlb_reach)
};

struct StaircaseRow {
  std::string id;  // probe id
  StaircaseQuestion question;
  LoadPath path;
  std::vector<std::string> elements;  // in step order: the element each step sizes
  bool run_alone;     // device-wide levels: one chase per batch, nothing else running
  double grid_ratio;  // between consecutive footprints of the coarse sweep
  std::string description;
};

const std::vector<StaircaseRow>& staircase_rows();

class StaircaseProbe : public Probe {
 public:
  explicit StaircaseProbe(StaircaseRow row) : row_(std::move(row)) {}
  std::string id() const override { return row_.id; }
  std::string description() const override { return row_.description; }
  // Every element of the row but the first (and dram, whose TLB-miss latency the TLB row
  // measures).
  std::vector<std::string> also_writes() const override;
  void run(ProbeContext& ctx) override;

 private:
  StaircaseRow row_;
};

// The staircase row with this probe id (constant_l1.size, l2.size, tlb_l1.reach) as a probe;
// each element's folder registers its own row.
std::unique_ptr<Probe> staircase_probe(const std::string& id);

}  // namespace memtopo
