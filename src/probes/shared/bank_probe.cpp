#include "probes/shared/bank_probe.hpp"

#include "probes/shared/bank_layout.hpp"
#include "probes/shared/conflict_latency.hpp"

namespace memtopo {

std::string BankProbe::id() const {
  switch (aspect_) {
    case BankAspect::banks:
      return "shared.banks";
    case BankAspect::bank_width:
      return "shared.bank_width";
    case BankAspect::conflict_latency:
      return "shared.conflict_latency";
  }
  return "shared.?";
}

std::string BankProbe::description() const {
  switch (aspect_) {
    case BankAspect::banks:
      return "shared-memory banks: a warp's stride sweep over 4 and 8 B words, broadcast and "
             "multicast; the bank layout that explains every pattern's cycles";
    case BankAspect::bank_width:
      return "shared-memory bank width, from the layout the shared.banks sweep found";
    case BankAspect::conflict_latency:
      return "cycles per shared-memory access at each bank-conflict degree 1..32, with spread";
  }
  return "";
}

std::vector<std::string> BankProbe::needs() const {
  switch (aspect_) {
    case BankAspect::banks:
      return {};
    case BankAspect::bank_width:
      return {"shared.banks"};
    case BankAspect::conflict_latency:
      return {"shared.banks", "shared.bank_width"};
  }
  return {};
}

void BankProbe::run(ProbeContext& ctx) {
  switch (aspect_) {
    case BankAspect::banks:
      measure_bank_layout(ctx);
      break;
    case BankAspect::bank_width:
      write_bank_width(ctx);
      break;
    case BankAspect::conflict_latency:
      measure_conflict_latency(ctx);
      break;
  }
}

std::vector<std::unique_ptr<Probe>> bank_probes() {
  std::vector<std::unique_ptr<Probe>> probes;
  for (const BankAspect aspect :
       {BankAspect::banks, BankAspect::bank_width, BankAspect::conflict_latency}) {
    probes.push_back(std::make_unique<BankProbe>(aspect));
  }
  return probes;
}

}  // namespace memtopo
