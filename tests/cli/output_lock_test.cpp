// The output locks (cli/output_lock.hpp): a second holder of one output is refused naming the
// first, the lock file goes when the lock is let go, and FIFOs and devices are not locked.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cli/output_lock.hpp"
#include "report/output_error.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("memtopo_output_lock_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string refusal(OutputLocks& locks, const std::optional<OutputTarget>& target) {
  try {
    locks.lock_file(target);
  } catch (const OutputError& error) {
    return error.what();
  }
  return "";
}

TEST(OutputLocks, ASecondWriterOfAFileIsRefusedNamingTheFirst) {
  const fs::path dir = fresh("file");
  const std::optional<OutputTarget> target = prepare_output((dir / "run.json").string());
  {
    OutputLocks first;
    first.lock_file(target);
    EXPECT_TRUE(fs::exists(dir / ".run.json.memtopo-lock"));
    OutputLocks second;  // its own open file description: flock treats it as another process
    const std::string message = refusal(second, target);
    EXPECT_NE(message.find("another memtopo (pid " + std::to_string(getpid())), std::string::npos)
        << message;
    EXPECT_NE(message.find("run.json"), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(dir / ".run.json.memtopo-lock")) << "removed when let go";
  OutputLocks later;
  EXPECT_EQ(refusal(later, target), "") << "free again";
}

TEST(OutputLocks, ADirectoryIsLockedInsideAndAFifoNotAtAll) {
  const fs::path dir = fresh("directory");
  OutputLocks first;
  first.lock_directory(dir, "--traces " + dir.string());
  OutputLocks second;
  EXPECT_THROW(second.lock_directory(dir, "--traces"), OutputError);
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::optional<OutputTarget> target = prepare_output(fifo.string());
  first.lock_file(target);
  EXPECT_EQ(refusal(second, target), "") << "a FIFO is written once, in place";
  EXPECT_FALSE(fs::exists(dir / ".fifo.memtopo-lock"));
}

}  // namespace
}  // namespace memtopo
