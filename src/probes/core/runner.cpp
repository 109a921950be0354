#include "probes/core/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "backend/backend.hpp"
#include "model/suggest.hpp"
#include "probes/core/inheritance.hpp"
#include "probes/core/phase_monitor.hpp"
#include "run/clock.hpp"
#include "run/phase.hpp"

namespace memtopo {
namespace {

// A clock that moved more than this during one phase makes its ns and bandwidth figures
// suspect (cycle counts are in SM cycles and stay valid), so the report flags it.
constexpr double kClockDriftLimit = 0.05;

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::string unknown_ids_message(const std::vector<std::string>& unknown,
                                const std::vector<std::unique_ptr<Probe>>& probes) {
  std::vector<std::string> element_ids, probe_ids;
  std::set<std::string> seen_elements;
  for (const auto& probe : probes) {
    probe_ids.push_back(probe->id());
    if (seen_elements.insert(probe->element_id()).second)
      element_ids.push_back(probe->element_id());
    for (const std::string& group : probe->groups()) {
      if (seen_elements.insert(group).second) element_ids.push_back(group);
    }
  }
  std::vector<std::string> known = element_ids;
  known.insert(known.end(), probe_ids.begin(), probe_ids.end());
  return std::string(unknown.size() == 1 ? "unknown id '" : "unknown ids '") +
         join(unknown, "', '") + "'" + did_you_mean(unknown.front(), known) +
         " Element ids: " + join(element_ids, ", ") + ". Probe ids: " + join(probe_ids, ", ") +
         ".";
}

// Orders `chosen` (indices into the registry) so that every probe follows the probes it needs;
// among probes that are ready, the one earlier in the registry goes first, so the result is
// the registry's own order whenever that order is already valid.
std::vector<std::size_t> dependency_order(const std::vector<std::unique_ptr<Probe>>& probes,
                                          const std::set<std::size_t>& chosen,
                                          const std::map<std::string, std::size_t>& index_of) {
  std::map<std::size_t, std::size_t> waiting_on;              // probe -> unmet needs
  std::map<std::size_t, std::vector<std::size_t>> needed_by;  // need -> probes waiting
  for (std::size_t p : chosen) {
    waiting_on[p] = 0;
    for (const std::string& need : probes[p]->needs()) {
      std::size_t n = index_of.at(need);
      ++waiting_on[p];
      needed_by[n].push_back(p);
    }
  }
  std::set<std::size_t> ready;
  for (const auto& [p, count] : waiting_on) {
    if (count == 0) ready.insert(p);
  }
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    std::size_t p = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(p);
    for (std::size_t dependent : needed_by[p]) {
      if (--waiting_on[dependent] == 0) ready.insert(dependent);
    }
  }
  if (order.size() != chosen.size()) {
    std::vector<std::string> stuck;
    for (const auto& [p, count] : waiting_on) {
      if (count > 0) stuck.push_back(probes[p]->id());
    }
    throw std::logic_error("probe dependencies form a cycle among: " + join(stuck, ", "));
  }
  return order;
}

void warn_if_clock_moved(Topology& topology, const PhaseTiming& phase) {
  if (!phase.sm_clock_khz_before || !phase.sm_clock_khz_after) return;
  double before = *phase.sm_clock_khz_before;
  double after = *phase.sm_clock_khz_after;
  double change = (after - before) / before;
  if (std::fabs(change) <= kClockDriftLimit) return;
  char text[256];
  std::snprintf(text, sizeof text,
                "SM clock moved from %.0f MHz to %.0f MHz (%+.0f%%) during %s: its cycle counts "
                "stand, but times in ns and bandwidths may be off; lock the clocks "
                "(nvidia-smi -lgc) or rerun it with --only %s",
                before / 1000, after / 1000, change * 100, phase.name.c_str(), phase.name.c_str());
  topology.warnings.emplace_back(text);
}

// What memory is free is a matter of the moment (other processes, what memtopo holds), not a
// fault of the probe: a skip, named so that the CLI can tell a run that could do nothing.
constexpr const char* kLackOfMemoryPrefix = "not enough device memory: ";

void skip_for_lack_of_memory(ProbeOutcome& outcome, const std::exception& error) {
  outcome.status = "skipped";
  outcome.reason = kLackOfMemoryPrefix + std::string(error.what());
}

// Runs `probe` once and says how it ended; `interrupted` tells the caller to stop. What it wrote
// is no surer than the findings it read (inheritance.hpp), however it ended.
ProbeOutcome run_attempt(Probe& probe, ProbeContext& ctx, bool& interrupted) {
  ProbeOutcome outcome{probe.id(), "ok", ""};
  try {
    run_inheriting(probe, ctx);
  } catch (const Interrupted&) {
    interrupted = true;
    outcome.status = "not_run";
    outcome.reason = "interrupted while running; its findings may be partial";
  } catch (const ProbeSkipped& skipped) {
    outcome.status = "skipped";
    outcome.reason = skipped.what();
  } catch (const OutOfMemoryError& error) {
    skip_for_lack_of_memory(outcome, error);
  } catch (const MemoryUnavailableError& error) {
    skip_for_lack_of_memory(outcome, error);
  } catch (const std::exception& error) {
    outcome.status = "failed";
    outcome.reason = error.what();
  }
  return outcome;
}

}  // namespace

bool skipped_for_lack_of_memory(const ProbeOutcome& outcome) {
  return outcome.status == "skipped" && outcome.reason.starts_with(kLackOfMemoryPrefix);
}

std::vector<Probe*> select_probes(const std::vector<std::unique_ptr<Probe>>& probes,
                                  const std::vector<std::string>& only) {
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    if (!index_of.emplace(probes[i]->id(), i).second) {
      throw std::logic_error("two probes share the id " + probes[i]->id());
    }
  }
  for (const auto& probe : probes) {
    for (const std::string& need : probe->needs()) {
      if (!index_of.count(need)) {
        throw std::logic_error("probe " + probe->id() + " needs unknown probe " + need);
      }
    }
  }

  std::set<std::size_t> chosen;
  std::vector<std::string> unknown;
  for (const std::string& entry : only) {
    if (auto it = index_of.find(entry); it != index_of.end()) {
      chosen.insert(it->second);
      continue;
    }
    bool is_element = false;
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const auto also = probes[i]->also_writes();
      const auto groups = probes[i]->groups();
      if (probes[i]->element_id() == entry ||
          std::find(also.begin(), also.end(), entry) != also.end() ||
          std::find(groups.begin(), groups.end(), entry) != groups.end()) {
        chosen.insert(i);
        is_element = true;
      }
    }
    if (!is_element) unknown.push_back(entry);
  }
  if (!unknown.empty()) throw SelectionError(unknown_ids_message(unknown, probes));
  if (only.empty()) {
    for (std::size_t i = 0; i < probes.size(); ++i) chosen.insert(i);
  }

  // Add what the chosen probes need, transitively.
  std::vector<std::size_t> pending(chosen.begin(), chosen.end());
  while (!pending.empty()) {
    std::size_t p = pending.back();
    pending.pop_back();
    for (const std::string& need : probes[p]->needs()) {
      if (chosen.insert(index_of.at(need)).second) pending.push_back(index_of.at(need));
    }
  }

  std::vector<Probe*> selected;
  for (std::size_t i : dependency_order(probes, chosen, index_of))
    selected.push_back(probes[i].get());
  return selected;
}

void run_probes(ProbeContext& ctx, const std::vector<Probe*>& selected,
                const ProbeFinished& after_each) {
  RunInfo& run = ctx.topology.run;
  PhaseMonitor monitor(ctx);

  // Marks selected[first..] not run and hands the interrupt on to the caller.
  auto stop = [&](std::size_t first) {
    for (std::size_t rest = first; rest < selected.size(); ++rest) {
      run.probes.push_back({selected[rest]->id(), "not_run", "interrupted before it started"});
    }
    run.interrupted = true;
    throw Interrupted();
  };

  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (ctx.interrupted()) stop(i);
    Probe& probe = *selected[i];
    PhaseTiming phase(probe.id());
    ProbeOutcome outcome;
    bool interrupted = false;

    ctx.progress("[" + std::to_string(i + 1) + "/" + std::to_string(selected.size()) + "] " +
                 probe.id() + ": " + probe.description());
    do {  // once, or twice when the device disturbed the first attempt
      monitor.begin_attempt(phase);
      time_phase(phase, [&] { return sm_clock_khz(ctx.backend); },
                 [&] { outcome = run_attempt(probe, ctx, interrupted); });
      monitor.end_attempt(phase);
    } while (!interrupted && monitor.repeat(phase));
    monitor.finish(phase);

    run.phases.push_back(phase);
    run.probes.push_back(outcome);
    // Where the device reports its conditions, the monitor has judged the clocks already.
    if (!phase.conditions_after) warn_if_clock_moved(ctx.topology, phase);
    if (outcome.status == "failed") {
      ctx.topology.warnings.push_back("probe " + probe.id() + " failed: " + outcome.reason);
    }

    if (interrupted) stop(i + 1);
    if (after_each) after_each(probe);
  }
}

}  // namespace memtopo
