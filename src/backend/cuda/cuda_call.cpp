#include "backend/cuda/cuda_call.hpp"

#include "backend/backend.hpp"

namespace memtopo {

bool is_no_device_error(cudaError_t code) {
  switch (code) {
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return true;
    default:
      return false;
  }
}

std::string describe_cuda_failure(cudaError_t code, const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call +
         " failed: " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Clear a non-sticky error so that it is not reported again by the next cudaGetLastError.
  (void)cudaGetLastError();
  const std::string message = describe_cuda_failure(code, call, file, line);
  if (code == cudaErrorMemoryAllocation) throw OutOfMemoryError(message);
  if (is_no_device_error(code)) throw NoDeviceError(message);
  throw CudaError(code, message);
}

}  // namespace memtopo
