#pragma once
// Checking every CUDA runtime call: CUDA_CALL(expr) throws on failure with where and what failed.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace memtopo {

// A CUDA runtime call failed. The message names the source location, the call, the error's
// name and its description. Out-of-memory and no-device failures are thrown as
// OutOfMemoryError and NoDeviceError instead (backend.hpp), so callers can tell them apart.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// True for the errors that mean "no usable device here" (no driver, no GPU, wrong index).
bool is_no_device_error(cudaError_t code);

// "file:line: call failed: cudaErrorX (description)".
std::string describe_cuda_failure(cudaError_t code, const char* call, const char* file, int line);

// Throws the exception that fits `code`: OutOfMemoryError, NoDeviceError or CudaError.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

}  // namespace memtopo

#define CUDA_CALL(expr) ::memtopo::check_cuda((expr), #expr, __FILE__, __LINE__)

// After a kernel launch: a bad configuration shows up in cudaGetLastError, a fault in the
// kernel only at the next synchronising call (which is CUDA_CALL-checked as well).
#define CUDA_CHECK_LAUNCH(what) \
  ::memtopo::check_cuda(cudaGetLastError(), "launch of " what, __FILE__, __LINE__)
