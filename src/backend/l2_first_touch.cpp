#include "backend/l2_first_touch.hpp"

#include <string>

#include "backend/backend.hpp"

namespace memtopo {

void validate(const L2FirstTouchSpec& spec) {
  if (spec.lines_per_reader == 0 || spec.lines_per_reader > kMaxFirstTouchLines) {
    throw ExperimentError("an L2 first-touch launch needs 1 to " +
                          std::to_string(kMaxFirstTouchLines) + " lines per reader, got " +
                          std::to_string(spec.lines_per_reader));
  }
}

}  // namespace memtopo
