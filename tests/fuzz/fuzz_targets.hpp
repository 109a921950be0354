#pragma once
// The fuzz targets: every reader of outside JSON memtopo has. Each takes any bytes and either
// accepts them or rejects them with the reader's own error (DescriptionError,
// TopologyJsonError). Anything else escaping, a crash, a hang or unbounded memory is a bug;
// the mutation runner (fuzz_runner_test.cpp) and the optional libFuzzer driver
// (libfuzzer_main.cpp) both call these.
#include <string>
#include <string_view>

namespace memtopo::fuzz {

struct Outcome {
  bool accepted = false;
  std::string message;  // the rejection message; empty when accepted
};

// The origin every target names its input by; a rejection message starts with it.
inline constexpr const char* kOrigin = "fuzz.json";

// A simulated-device description (--sim FILE). An accepted one is also built into a simulated
// device that runs one small chase on every path, so that values the loader lets through are
// computed with once.
Outcome load_sim_description(std::string_view input);

// A memtopo result (--json FILE), read as `compare` reads it (topology_from_json_text); an
// accepted one is written back and read again.
Outcome read_topology_json(std::string_view input);

// A saved run as `memtopo report`, `compare` and `export` read it (report/run_file.hpp, from a
// file): an accepted one is compared with itself and with an empty run, both comparisons
// rendered, exported for Accel-Sim and rendered as the console, HTML and markdown reports, so
// that what the reader lets through is computed with.
Outcome compare_runs(std::string_view input);

}  // namespace memtopo::fuzz
