// run_order (declared in registry.hpp): Kahn's topological sort, earliest registration first.
#include <set>
#include <stdexcept>
#include <string>

#include "probes/core/registry.hpp"

namespace memtopo {
namespace {

// Whether every need of `probe` that some probe of the list provides has run already.
bool needs_met(const Probe& probe, const std::set<std::string>& provided,
               const std::set<std::string>& done) {
  for (const std::string& need : probe.needs()) {
    if (provided.count(need) && !done.count(need)) return false;
  }
  return true;
}

std::string ids_of(const ProbeList& probes) {
  std::string ids;
  for (const auto& probe : probes) ids += (ids.empty() ? "" : ", ") + probe->id();
  return ids;
}

}  // namespace

ProbeList run_order(ProbeList registered) {
  std::set<std::string> provided;
  for (const auto& probe : registered) provided.insert(probe->id());
  ProbeList ordered;
  std::set<std::string> done;
  while (!registered.empty()) {
    auto next = registered.begin();
    while (next != registered.end() && !needs_met(**next, provided, done)) ++next;
    if (next == registered.end())
      throw std::logic_error("probes that need each other: " + ids_of(registered));
    done.insert((*next)->id());
    ordered.push_back(std::move(*next));
    registered.erase(next);
  }
  return ordered;
}

}  // namespace memtopo
