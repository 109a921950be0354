#pragma once
// How an experiment ends other than with a result, for every kind of run (a discovery's probe,
// a study, the p2p family): it does not apply here, or the user asked to stop.
#include <stdexcept>

namespace memtopo {

// Thrown by a probe or a study that does not apply to this device (no texture support, a
// simulated device without the model it needs); the run records the message as the reason and
// goes on. What was measured before it is kept.
class Skipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when a stop signal arrived (RunContext::check_interrupted, and before every
// experiment); what was measured so far is kept and written.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace memtopo
