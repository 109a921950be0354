#pragma once
// l1.carveout: the L1 size at several shared-memory reservations, where L1 and shared memory are
// one array per SM (the unified L1/shared memory of Volta and later). A chase's block reserves
// R bytes of shared memory; the driver configures a carveout of at least R, and the L1 keeps
// what is left. The table lists, per reservation, the L1 size the usual size search finds, and
// l1.unified_size derives the L1 + shared capacity the table implies (a lower bound: the
// carveout is only known to be at least the reservation).
#include <string>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

class CarveoutProbe : public Probe {
 public:
  std::string id() const override { return "l1.carveout"; }
  std::string description() const override {
    return "L1 size at shared-memory reservations of 0, 1/4, 1/2, 3/4 and all of the opt-in "
           "maximum, and the unified L1 + shared capacity they imply";
  }
  std::vector<std::string> needs() const override;
  void run(ProbeContext& ctx) override;
};

}  // namespace memtopo
