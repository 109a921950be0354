// The thread that writes a discovery's JSON checkpoints (cli/checkpoint_writer.hpp).
#include "cli/checkpoint_writer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/json.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

fs::path fresh_file(const std::string& name) {
  const fs::path directory = fs::temp_directory_path() / ("memtopo-checkpoint-" + name);
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory / "out.json";
}

Topology run_with_phases(std::size_t count) {
  Topology topology;
  for (std::size_t i = 0; i < count; ++i) topology.run.phases.emplace_back("p" + std::to_string(i));
  return topology;
}

Topology read_back(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return topology_from_json_text(text.str(), path.string());
}

TEST(CheckpointWriter, TheLastCheckpointSubmittedIsTheFileOnceDrained) {
  const fs::path path = fresh_file("last");
  CheckpointWriter writer(prepare_output(path.string()));
  for (std::size_t phases = 1; phases <= 20; ++phases) writer.submit(run_with_phases(phases));
  writer.drain();
  const Topology written = read_back(path);
  EXPECT_EQ(written.run.phases.size(), 20u) << "a newer checkpoint replaces an older one";
  EXPECT_FALSE(written.run.complete) << "a checkpoint says the run goes on";
  EXPECT_EQ(writer.last_error(), "");
}

TEST(CheckpointWriter, AFailedWriteIsReportedToTheNextSubmit) {
  const fs::path path = fresh_file("fails");
  CheckpointWriter writer(prepare_output(path.string()));
  fs::remove_all(path.parent_path());  // the temporary file cannot be made there any more
  writer.submit(run_with_phases(1));
  writer.drain();
  EXPECT_NE(writer.last_error(), "");
}

}  // namespace
}  // namespace memtopo
