#pragma once
// One CUDA backend shared by every GPU test; tests skip with the reason when there is none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_backend.hpp"

namespace memtopo::testing {

class GpuTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (backend_ || !skip_reason_.empty()) return;
    const char* index = std::getenv("MEMTOPO_TEST_DEVICE");
    try {
      backend_ = make_cuda_backend(index ? std::atoi(index) : 0);
    } catch (const NoDeviceError& error) {
      skip_reason_ = error.what();
    }
  }
  void SetUp() override {
    if (backend_) return;
    // NoDeviceError messages for a missing device already begin with "no CUDA device visible".
    const bool said = skip_reason_.starts_with("no CUDA device visible");
    GTEST_SKIP() << (said ? "" : "no CUDA device visible: ") << skip_reason_;
  }
  Backend& backend() { return *backend_; }

 public:
  // Frees the shared backend and its device memory before the program exits, so that
  // compute-sanitizer's leak check sees every allocation returned (gpu_fixture.cpp calls it from
  // a global test environment's TearDown).
  static void release_shared_backend() { backend_.reset(); }

 private:
  // Shared by all suites of the executable: creating a backend surveys the SMs.
  static inline std::unique_ptr<Backend> backend_;
  static inline std::string skip_reason_;
};

}  // namespace memtopo::testing
