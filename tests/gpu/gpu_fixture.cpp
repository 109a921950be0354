// Releases GpuTest's shared backend after the last test: without it the backend lived until the
// static destructors ran after the CUDA runtime had begun to shut down, and compute-sanitizer's
// leak check reported every buffer it held (11 reports on the H200 at caafe64).
#include "gpu_fixture.hpp"

namespace memtopo::testing {
namespace {

class ReleaseSharedBackend : public ::testing::Environment {
 public:
  void TearDown() override { GpuTest::release_shared_backend(); }
};

// gtest owns the environment; registering at static initialisation works with gtest_main.
[[maybe_unused]] const ::testing::Environment* const registered =
    ::testing::AddGlobalTestEnvironment(new ReleaseSharedBackend);

}  // namespace
}  // namespace memtopo::testing
