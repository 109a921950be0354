#pragma once
// The reports of a study run: JSON (schema "memtopo-study/1", with the run header and device
// facts as a discovery writes them) and the console text. Views of a StudyReport only.
#include <string>

#include "model/topology.hpp"
#include "study/result.hpp"

namespace memtopo::study {

inline constexpr const char* kStudySchemaVersion = "memtopo-study/1";

struct StudyReport {
  // The run (tool, arguments, phases, lock, simulated), device facts and warnings, as in a
  // discovery; `header.elements` stays empty.
  Topology header;
  StudyResult result;
};

nlohmann::ordered_json study_to_json(const StudyReport& report);
// study_to_json indented by two spaces, ending in a newline.
std::string render_study_json(const StudyReport& report);

// The SIMULATED banner (simulated runs), the device line, the study's status, each table
// (measured values as p50 ± stdev, low confidences marked ~), the findings, the notes, the
// phase timings and warnings.
std::string render_study_console(const StudyReport& report);

}  // namespace memtopo::study
