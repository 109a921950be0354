#pragma once
// A study: a code-pattern experiment (study 001, docs/references.md) that `memtopo study <id>`
// runs on one device. Each registers in registry.cpp with an id, a title, what it needs and a run
// function; docs/studies.md says what a study writes, docs/architecture.md where one goes.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/topology.hpp"
#include "run/context.hpp"
#include "study/result.hpp"

namespace memtopo::study {

// A study runs through the engine's context (run/context.hpp): its experiments reach --traces
// and the SM clock log, a device that cannot run it throws Skipped (the study ends skipped with
// the message as its reason, exit code 10), a stop signal Interrupted (it ends with what it
// measured, marked interrupted); phases are RunContext::phase. `topology` is the study's report
// header: its run (phases) and warnings.
struct StudyContext : RunContext {
  // --topology FILE: a discovery of this device whose findings (line, sector, banks) the
  // study ties its findings to; nullopt without one (predictions then say "not measured").
  std::optional<Topology> discovery = std::nullopt;
};

struct Study {
  std::string id;     // stable: `memtopo study <id>`
  std::string title;  // one line
  std::string needs;  // what the device must offer, for --list
  // Fills `result` (id, title and status are set by run_study) table by table as it measures,
  // so that a skip, a failure or a stop signal part-way keeps what was measured.
  std::function<void(StudyContext&, StudyResult&)> run;
};

// Every study, in --list order.
const std::vector<Study>& all_studies();
// The study with this id, or nullptr.
const Study* find_study(const std::string& id);

// Runs `study`: status "ok"; Skipped becomes "skipped" with its reason, Interrupted
// "interrupted", any other std::exception "failed" with its message.
StudyResult run_study(const Study& study, StudyContext& context);

}  // namespace memtopo::study
