// The classes of input that once escaped the readers (issue 37), each tried exhaustively rather
// than left to chance mutations: every cell of every table-valued property of a run given a
// value of another type, garbage after every seed of every reader, and inputs too large or
// endless to read. An input passes when its reader accepts it (and everything computed from it
// works) or rejects it with its own error naming where; fuzz_runner_test.cpp does the rest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "backend/backend.hpp"
#include "backend/sim/description_loader.hpp"
#include "fuzz_targets.hpp"
#include "model/json.hpp"
#include "report/run_file.hpp"

namespace memtopo::fuzz {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

std::string seed_text(const std::string& target, const std::string& name) {
  std::ifstream file(fs::path(MEMTOPO_SOURCE_DIR) / "tests/fuzz/corpus" / target / name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> seeds(const std::string& target) {
  std::vector<std::string> texts;
  for (const auto& entry :
       fs::directory_iterator(fs::path(MEMTOPO_SOURCE_DIR) / "tests/fuzz/corpus" / target)) {
    texts.push_back(seed_text(target, entry.path().filename().string()));
  }
  return texts;
}

// Runs `target` on `input`: accepted, or rejected with a message that starts with the input's
// name; any other exception fails the test.
bool accepted(const std::function<Outcome(std::string_view)>& target, const std::string& input,
              const std::string& what) {
  try {
    const Outcome outcome = target(input);
    if (!outcome.accepted) {
      EXPECT_EQ(outcome.message.rfind(std::string(kOrigin) + ": ", 0), 0u)
          << what << ": " << outcome.message;
    }
    return outcome.accepted;
  } catch (const std::exception& error) {
    ADD_FAILURE() << what << ": an exception the reader does not promise: " << error.what();
    return false;
  }
}

// Every value inside `value` (the value itself first).
void each_value(ojson& value, const std::function<void(ojson&, const std::string&)>& visit,
                const std::string& where) {
  visit(value, where);
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it)
      each_value(it.value(), visit, where + "." + it.key());
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      each_value(value[i], visit, where + "[" + std::to_string(i) + "]");
  }
}

// A table cell of another type ended `memtopo report` in an internal error; a string reached
// the export as a number. Every cell of every table-valued property of a run that holds each
// of them, as false, [], null and a string; every value of its evidence as null (what a report
// reading a number or a string with value(key, default) did not take). About 1,400 inputs.
TEST(FuzzClasses, WrongTypesInEveryTableCell) {
  const ojson run = ojson::parse(seed_text("compare_input", "tables.json"));
  const std::vector<ojson> in_values = {false, ojson::array(), nullptr, "x"};
  const std::vector<ojson> in_evidence = {nullptr};
  std::size_t inputs = 0;
  std::size_t accepted_inputs = 0;
  for (std::size_t e = 0; e < run["elements"].size(); ++e) {
    for (const auto& [name, property] : run["elements"][e].items()) {
      if (!property.is_object() || !property.contains("value")) continue;
      for (const char* part : {"value", "evidence"}) {
        if (!property.contains(part) || !property[part].is_structured()) continue;
        // Each value of the table once: its path, then a copy of the run with it replaced.
        ojson paths = ojson::array();
        ojson table = property[part];
        each_value(
            table, [&](ojson&, const std::string& where) { paths.push_back(where); }, "");
        for (std::size_t k = 1; k < paths.size(); ++k) {  // 0: the table itself
          for (const ojson& other : std::string(part) == "value" ? in_values : in_evidence) {
            ojson changed = run;
            std::size_t seen = 0;
            each_value(
                changed["elements"][e][name][part],
                [&](ojson& value, const std::string&) {
                  if (seen++ == k) value = other;
                },
                "");
            const std::string what = "elements[" + std::to_string(e) + "]." + name + "." + part +
                                     paths[k].get<std::string>() + " = " + other.dump();
            accepted_inputs += accepted(compare_runs, changed.dump(), what);
            ++inputs;
          }
        }
      }
    }
  }
  std::cout << "[ fuzz ] table cells: " << inputs << " inputs, " << accepted_inputs
            << " accepted\n";
  EXPECT_GT(inputs, 1000u);
}

// `{...}\0 garbage` was accepted by the sim loader and the run reader.
TEST(FuzzClasses, GarbageAfterEverySeedOfEveryReader) {
  const std::vector<std::pair<std::string, std::function<Outcome(std::string_view)>>> readers = {
      {"sim_description", load_sim_description},
      {"topology_json", read_topology_json},
      {"compare_input", compare_runs}};
  const std::vector<std::string> tails = {
      std::string(1, '\0'), std::string("\0 garbage", 9), " garbage", "{}", "]", "\n\"x\"\n"};
  for (const auto& [name, reader] : readers) {
    for (const std::string& seed : seeds(name)) {
      for (const std::string& tail : tails) {
        EXPECT_FALSE(accepted(reader, seed + tail, name + " seed + garbage")) << name;
      }
      EXPECT_TRUE(accepted(reader, seed + " \n\t", name + " seed + whitespace")) << name;
    }
  }
}

// A file too large for a reader is refused before it is read (a sparse file: nothing to read
// but its size), an endless one (/dev/zero) at its first byte.
TEST(FuzzClasses, HugeAndEndlessFilesAreRefusedWithoutReadingThem) {
  const fs::path dir =
      fs::temp_directory_path() / ("memtopo_fuzz_huge_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path run = dir / "run.json";
  std::ofstream(run) << seed_text("compare_input", "tables.json");
  fs::resize_file(run, kMaxRunFileBytes + 1);
  const fs::path description = dir / "sim.json";
  std::ofstream(description) << seed_text("sim_description", "tiny.json");
  fs::resize_file(description, std::uintmax_t{1} << 30);
  const auto start = std::chrono::steady_clock::now();
  for (const fs::path& path : {run, fs::path("/dev/zero")}) {
    try {
      read_run_file(path.string());
      ADD_FAILURE() << path << " was read";
    } catch (const TopologyJsonError& error) {
      EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
    }
  }
  for (const fs::path& path : {description, fs::path("/dev/zero")}) {
    EXPECT_THROW(sim::load_description_file(path.string()), DescriptionError) << path;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace memtopo::fuzz
