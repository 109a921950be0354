#pragma once
// Shared-memory banks (paper 000, 3.1 and 4.1): how many banks, how wide, and what a conflict of
// each degree costs, from warp-wide shared-memory accesses (Backend::warp_access()).
//   shared.banks             the stride method's sweep, and the layout that explains it
//   shared.bank_width        the width of that layout (from shared.banks' evidence)
//   shared.conflict_latency  cycles per conflict degree 1..32, from a ladder of exact degrees
#include <memory>
#include <string>
#include <vector>

#include "probes/core/probe.hpp"

namespace memtopo {

enum class BankAspect { banks, bank_width, conflict_latency };

class BankProbe : public Probe {
 public:
  explicit BankProbe(BankAspect aspect) : aspect_(aspect) {}
  std::string id() const override;
  std::string description() const override;
  std::vector<std::string> needs() const override;
  void run(ProbeContext& ctx) override;

 private:
  BankAspect aspect_;
};

// The three probes, in run order.
std::vector<std::unique_ptr<Probe>> bank_probes();

}  // namespace memtopo
