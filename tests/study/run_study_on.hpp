#pragma once
// Runs a study on a backend the way `memtopo study` does, through the engine's context, without
// the CLI: the phases land in a scratch header, the experiments in `traces` (nullptr: nowhere).
#include <optional>

#include "run/trace_sink.hpp"
#include "study/study.hpp"

namespace memtopo::study {

inline StudyResult run_study_on(Backend& backend, const Study& study,
                                TraceSink* traces = nullptr) {
  Topology header;
  StudyContext context{{.backend = backend, .topology = header, .traces = traces}};
  return run_study(study, context);
}

}  // namespace memtopo::study
