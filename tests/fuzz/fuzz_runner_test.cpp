// The deterministic mutation runner: every seed of tests/fuzz/corpus/<target>/ and a fixed
// number of mutations of them (mutator.hpp) through each fuzz target (fuzz_targets.hpp). An
// input passes when the target accepts it, or rejects it with a message that starts with the
// input's name, names a key or a position, and is printable. A crash, another exception, an
// input that takes more than 10 s or a run above 2 GiB fails. docs/reliability.md says why a
// runner rather than libFuzzer in CI.
//
// MEMTOPO_FUZZ_ITERATIONS=N runs N mutations per target (default below); MEMTOPO_FUZZ_ONLY=K
// runs mutation K alone and writes it to fuzz-input-<target>-<K>.json, to reproduce a failure.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_targets.hpp"
#include "model/printable_text.hpp"
#include "mutator.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace memtopo::fuzz {
namespace {

namespace fs = std::filesystem;

// Mutations per target in a normal test run: about 10 s for both targets on one core of the
// development machine (optimised build), several times that under the sanitizers.
constexpr std::uint64_t kDefaultIterations = 3000;
// A stop after this much time, so that a slow machine still ends (it says how far it got).
constexpr double kMaxSecondsPerTarget = 120;
constexpr unsigned kMaxSecondsPerInput = 10;
constexpr long kMaxResidentKib = 2L * 1024 * 1024;  // 2 GiB
constexpr std::size_t kMaxMessageBytes = 1000;

// What is being run now, for the messages of a crash or a hang (written from a signal handler).
char g_current[256] = "nothing yet";

void say_current() {
  const char prefix[] = "\nfuzz: the input that failed: ";
  ssize_t ignored = write(STDERR_FILENO, prefix, sizeof prefix - 1);
  ignored = write(STDERR_FILENO, g_current, std::strlen(g_current));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
}

extern "C" void on_fatal_signal(int signal) {
  say_current();
  ::signal(signal, SIG_DFL);
  raise(signal);
}

extern "C" void on_input_timeout(int) {
  const char message[] = "\nfuzz: an input took longer than 10 s";
  ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  say_current();
  _exit(EXIT_FAILURE);
}

void install_reporters() {
#if defined(__SANITIZE_ADDRESS__)
  // ASan reports the crash itself; it calls this before it ends the process.
  __sanitizer_set_death_callback(say_current);
#else
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(signal, on_fatal_signal);
#endif
  ::signal(SIGALRM, on_input_timeout);
}

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

struct Seed {
  std::string name;
  std::string text;
};

std::vector<Seed> corpus(const std::string& target) {
  std::vector<Seed> seeds;
  const fs::path directory = fs::path(MEMTOPO_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / target;
  for (const auto& entry : fs::directory_iterator(directory)) {
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    seeds.push_back({entry.path().filename().string(), text.str()});
  }
  std::sort(seeds.begin(), seeds.end(),
            [](const Seed& a, const Seed& b) { return a.name < b.name; });
  return seeds;
}

// The start of a message, for a failure report that stays readable.
std::string start_of(const std::string& message) {
  constexpr std::size_t kShown = 300;
  return message.size() > kShown ? message.substr(0, kShown) + "..." : message;
}

// A rejection is useful when it says where: a key's path, or the parser's line and column.
void expect_useful_rejection(const std::string& full_message, const std::string& input_name) {
  SCOPED_TRACE(input_name);
  const std::string message = start_of(full_message);
  const std::string origin = std::string(kOrigin) + ": ";
  EXPECT_EQ(message.rfind(origin, 0), 0u) << message;
  EXPECT_GT(full_message.size(), origin.size() + 5) << message;
  EXPECT_LE(full_message.size(), kMaxMessageBytes) << message;
  EXPECT_TRUE(is_printable_text(full_message))
      << "raw control or non-UTF-8 bytes in: " << printable_text(message);
  if (full_message.find("not valid JSON") != std::string::npos) {
    EXPECT_TRUE(full_message.find(", column ") != std::string::npos ||
                full_message.find("number overflow") != std::string::npos)
        << message;
  }
}

struct Tally {
  std::uint64_t accepted = 0;
  std::uint64_t rejected = 0;
  std::uint64_t inputs = 0;
  double slowest_seconds = 0;
};

void run_one(const std::function<Outcome(std::string_view)>& target, const std::string& input,
             const std::string& name, Tally& tally) {
  std::snprintf(g_current, sizeof g_current, "%s", name.c_str());
  const auto start = std::chrono::steady_clock::now();
  alarm(kMaxSecondsPerInput);
  Outcome outcome;
  try {
    outcome = target(input);
  } catch (const std::exception& error) {
    ADD_FAILURE() << name << ": an exception the reader does not promise: "
                  << start_of(error.what());
  }
  alarm(0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  tally.slowest_seconds = std::max(tally.slowest_seconds, seconds);
  ++tally.inputs;
  if (outcome.accepted) {
    ++tally.accepted;
  } else {
    ++tally.rejected;
    expect_useful_rejection(outcome.message, name);
  }
}

void fuzz(const std::string& target_name, const std::function<Outcome(std::string_view)>& target) {
  install_reporters();
  const std::vector<Seed> seeds = corpus(target_name);
  ASSERT_FALSE(seeds.empty()) << "no seed under tests/fuzz/corpus/" << target_name;
  Tally tally;
  if (const char* only = std::getenv("MEMTOPO_FUZZ_ONLY"); only && *only) {
    const std::uint64_t index = std::strtoull(only, nullptr, 10);
    const Seed& seed = seeds[index % seeds.size()];
    const std::string input = mutate(seed.text, index);
    std::ofstream("fuzz-input-" + target_name + "-" + only + ".json", std::ios::binary) << input;
    run_one(target, input, target_name + " mutation " + only + " of " + seed.name, tally);
    return;
  }
  for (const Seed& seed : seeds) {
    run_one(target, seed.text, target_name + " seed " + seed.name, tally);
    EXPECT_EQ(tally.rejected, 0u) << "a seed must be valid: " << seed.name;
  }
  const std::uint64_t iterations = env_number("MEMTOPO_FUZZ_ITERATIONS", kDefaultIterations);
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t index = 0;
  for (; index < iterations && !::testing::Test::HasFailure(); ++index) {
    const Seed& seed = seeds[index % seeds.size()];
    run_one(target, mutate(seed.text, index),
            target_name + " mutation " + std::to_string(index) + " of " + seed.name +
                " (MEMTOPO_FUZZ_ONLY=" + std::to_string(index) + ")",
            tally);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
        kMaxSecondsPerTarget) {
      std::cout << "[ fuzz ] " << target_name << ": stopped after " << kMaxSecondsPerTarget
                << " s, at mutation " << index + 1 << " of " << iterations << "\n";
      ++index;
      break;
    }
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::cout << "[ fuzz ] " << target_name << ": " << tally.inputs << " inputs (" << seeds.size()
            << " seeds, " << index << " mutations): " << tally.accepted << " accepted, "
            << tally.rejected << " rejected; slowest " << tally.slowest_seconds << " s; peak "
            << usage.ru_maxrss / 1024 << " MiB\n";
  EXPECT_LT(usage.ru_maxrss, kMaxResidentKib);
  // Mutations that leave a description valid exist, but most should be caught.
  EXPECT_GT(tally.rejected, tally.inputs / 2);
}

TEST(Fuzz, SimDescriptionLoader) {
  fuzz("sim_description", load_sim_description);
}

TEST(Fuzz, TopologyJsonReader) {
  fuzz("topology_json", read_topology_json);
}

TEST(Fuzz, CompareReader) {
  fuzz("compare_input", compare_runs);
}

}  // namespace
}  // namespace memtopo::fuzz
