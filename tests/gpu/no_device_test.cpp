// Without a driver or a visible GPU the backend factory must fail cleanly, saying what to do.
#include <gtest/gtest.h>

#include <string>

#include "backend/cuda/cuda_backend.hpp"

namespace memtopo {
namespace {

TEST(CudaBackendWithoutDevice, FailsWithNoDeviceErrorAndAdvice) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_cuda_backend(0);
  } catch (const NoDeviceError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no CUDA device visible"), std::string::npos) << message;
    EXPECT_NE(message.find("nvidia-smi"), std::string::npos) << message;
    EXPECT_NE(message.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << message;
    EXPECT_NE(message.find("--sim FILE"), std::string::npos) << message;
    return;
  }
  GTEST_SKIP() << "a CUDA device is visible: " << backend->facts().name;
}

}  // namespace
}  // namespace memtopo
