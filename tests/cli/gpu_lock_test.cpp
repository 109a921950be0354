// The per-GPU lock: a second memtopo waits, gives up after --wait naming the holder, stops when
// interrupted; a lock file that cannot be used is no error, but said.
#include "cli/gpu_lock.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "cli/gpu_claim.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kUuid = "GPU-12345678-9abc-def0-1234-56789abcdef0";

fs::path fresh_directory(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("memtopo_gpu_lock_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

GpuLockWait no_wait() {
  GpuLockWait wait;
  wait.limit = 0s;
  return wait;
}

TEST(GpuLock, TheFirstTakesItAndSaysWhoHoldsIt) {
  const fs::path dir = fresh_directory("first");
  GpuLock lock(kUuid, dir, no_wait());
  ASSERT_TRUE(lock.held()) << lock.problem();
  EXPECT_EQ(lock.path(), dir / (std::string("memtopo-") + kUuid + ".lock"));
  std::ifstream file(lock.path());
  std::string holder;
  std::getline(file, holder);
  EXPECT_TRUE(holder.starts_with("pid " + std::to_string(getpid()) + " since ")) << holder;
  EXPECT_EQ(lock.waited_seconds(), 0);
}

TEST(GpuLock, ASecondGivesUpAfterItsLimitNamingTheHolder) {
  const fs::path dir = fresh_directory("busy");
  GpuLock first(kUuid, dir, no_wait());
  std::string told;
  GpuLockWait wait;
  wait.limit = 200ms;
  wait.poll_interval = 20ms;
  wait.on_wait = [&told](const std::string& holder) { told += holder + "|"; };
  const auto start = std::chrono::steady_clock::now();
  try {
    GpuLock second(kUuid, dir, wait);
    FAIL() << "expected GpuBusyError";
  } catch (const GpuBusyError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("still held by another memtopo (pid " + std::to_string(getpid())),
              std::string::npos)
        << error.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);
  EXPECT_TRUE(told.starts_with("pid ")) << told;
  EXPECT_EQ(told.find('|'), told.size() - 1) << "told once: " << told;
}

TEST(GpuLock, AnotherGpuHasItsOwnLock) {
  const fs::path dir = fresh_directory("other");
  GpuLock first(kUuid, dir, no_wait());
  GpuLock other("GPU-ffffffff-0000-0000-0000-000000000000", dir, no_wait());
  EXPECT_TRUE(other.held());
}

TEST(GpuLock, ASecondWaitsUntilTheFirstEnds) {
  const fs::path dir = fresh_directory("wait");
  auto first = std::make_unique<GpuLock>(kUuid, dir, no_wait());
  std::thread release([&first] {
    std::this_thread::sleep_for(150ms);
    first.reset();
  });
  GpuLockWait wait;  // no limit
  wait.poll_interval = 10ms;
  int told = 0;
  wait.on_wait = [&told](const std::string&) { ++told; };
  GpuLock second(kUuid, dir, wait);
  release.join();
  EXPECT_TRUE(second.held());
  EXPECT_EQ(told, 1);
  EXPECT_GE(second.waited_seconds(), 0.1);
}

TEST(GpuLock, AnInterruptEndsTheWait) {
  const fs::path dir = fresh_directory("interrupt");
  GpuLock first(kUuid, dir, no_wait());
  GpuLockWait wait;
  wait.poll_interval = 10ms;
  std::atomic<int> polls = 0;
  wait.interrupted = [&polls] { return ++polls > 3; };
  EXPECT_THROW({ GpuLock second(kUuid, dir, wait); }, LockWaitInterrupted);
}

TEST(GpuLock, ASymlinkInItsPlaceIsNotFollowed) {
  const fs::path dir = fresh_directory("symlink");
  const fs::path target = dir / "victim";
  std::ofstream(target) << "precious\n";
  fs::create_symlink(target, dir / (std::string("memtopo-") + kUuid + ".lock"));
  GpuLock lock(kUuid, dir, no_wait());
  EXPECT_FALSE(lock.held());
  EXPECT_NE(lock.problem().find("cannot open the lock file"), std::string::npos) << lock.problem();
  std::ifstream file(target);
  std::string text;
  std::getline(file, text);
  EXPECT_EQ(text, "precious");
}

TEST(GpuLock, AnUnusableDirectoryIsSaidInTheRunAndWarned) {
  GpuLock lock(kUuid, fs::path("/nonexistent/memtopo"), no_wait());
  EXPECT_FALSE(lock.held());
  GpuClaim claim;
  claim.lock = std::make_unique<GpuLock>(kUuid, fs::path("/nonexistent/memtopo"), no_wait());
  RunInfo run;
  std::vector<std::string> warnings;
  record_claim(claim, SharingVerdict{}, run, warnings);
  EXPECT_TRUE(run.gpu_lock.starts_with("none: cannot open the lock file")) << run.gpu_lock;
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("another memtopo could start on this GPU"), std::string::npos);
}

TEST(GpuLock, AUuidCannotMakeAPath) {
  const fs::path dir = fresh_directory("path");
  GpuLock lock("../../etc/passwd", dir, no_wait());
  EXPECT_EQ(lock.path().parent_path(), dir);
  EXPECT_EQ(lock.path().filename(), "memtopo-______etc_passwd.lock");
}

TEST(GpuLock, TheDirectoryComesFromTheEnvironment) {
  ::setenv("MEMTOPO_LOCK_DIR", "/somewhere/else", 1);
  EXPECT_EQ(default_lock_directory(), fs::path("/somewhere/else"));
  ::unsetenv("MEMTOPO_LOCK_DIR");
  EXPECT_EQ(default_lock_directory(), fs::path("/tmp"));
}

}  // namespace
}  // namespace memtopo
