#pragma once
// A study: a code-pattern experiment (study 001, docs/references.md) that `memtopo study <id>`
// runs on one device. Each registers in registry.cpp with an id, a title, what it needs and a run
// function; docs/studies.md says what a study writes, docs/architecture.md where one goes.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "model/topology.hpp"
#include "study/result.hpp"

namespace memtopo::study {

// Thrown by a study (from anywhere inside its run) when this device cannot run it: a simulated
// device without the model it needs, a GPU without the feature. The study ends skipped with the
// message as its reason (exit code 10); what it measured before is kept.
class StudySkipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when a stop signal arrived (interrupted() was true at a check): the study ends with
// what it measured, marked interrupted.
class StudyInterrupted : public std::runtime_error {
 public:
  StudyInterrupted() : std::runtime_error("interrupted") {}
};

// Records how long each phase of a study takes (and the SM clock around it).
class PhaseTimer {
 public:
  explicit PhaseTimer(Backend& backend) : backend_(backend) {}
  // Runs `work` as phase `name`, appending its timing (also when it throws).
  void run(const std::string& name, const std::function<void()>& work);
  const std::vector<PhaseTiming>& phases() const { return phases_; }

 private:
  Backend& backend_;
  std::vector<PhaseTiming> phases_;
};

// Where raw samples go with --traces DIR: one CSV per call, DIR/<study>_<name>.csv. Writing
// never fails a study: the first error is kept and reported at the end.
class TraceFiles {
 public:
  virtual ~TraceFiles() = default;
  // `header`: comma-separated column names; each row already formatted.
  virtual void write(const std::string& name, const std::string& header,
                     const std::vector<std::string>& rows) = 0;
};

struct StudyContext {
  Backend& backend;
  PhaseTimer& phases;
  std::function<void(const std::string&)> progress;  // one line to the user (stderr)
  std::function<bool()> interrupted;                 // a stop signal arrived
  std::uint64_t seed = 1;
  // --topology FILE: a discovery of this device whose findings (line, sector, banks) the
  // study ties its findings to; nullopt without one (predictions then say "not measured").
  std::optional<Topology> topology = std::nullopt;
  TraceFiles* traces = nullptr;  // --traces DIR, or nullptr

  // Throws StudyInterrupted when a stop signal arrived; studies call it between batches.
  void check_interrupt() const {
    if (interrupted && interrupted()) throw StudyInterrupted();
  }
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

// Runs `study`: status "ok"; a StudySkipped becomes "skipped" with its reason, any other
// std::exception "failed" with its message, StudyInterrupted "interrupted".
StudyResult run_study(const Study& study, StudyContext& context);

}  // namespace memtopo::study
