// Every study, in --list order. A new study adds one entry here (docs/studies.md).
#include "study/studies.hpp"

namespace memtopo::study {

const std::vector<Study>& all_studies() {
  static const std::vector<Study> studies = {
      stride_study(),
      coalescing_study(),
      sync_study(),
      spilling_study(),
  };
  return studies;
}

const Study* find_study(const std::string& id) {
  for (const Study& study : all_studies()) {
    if (study.id == id) return &study;
  }
  return nullptr;
}

}  // namespace memtopo::study
