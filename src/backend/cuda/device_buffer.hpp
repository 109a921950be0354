#pragma once
// Owning handle to device memory: cudaMalloc in the constructor, cudaFree in the destructor.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "backend/cuda/cuda_call.hpp"

namespace memtopo {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CUDA_CALL(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() { release(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Copies host elements to the buffer, starting at element `offset`.
  void upload(std::span<const T> host, std::size_t offset = 0) {
    if (host.empty()) return;
    check_range(offset, host.size());
    CUDA_CALL(cudaMemcpy(data_ + offset, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  }
  // Copies buffer elements starting at `offset` into `host`.
  void download(std::span<T> host, std::size_t offset = 0) const {
    if (host.empty()) return;
    check_range(offset, host.size());
    CUDA_CALL(cudaMemcpy(host.data(), data_ + offset, host.size_bytes(), cudaMemcpyDeviceToHost));
  }
  void fill_zero() {
    if (count_ > 0) CUDA_CALL(cudaMemset(data_, 0, bytes()));
  }
  // Sets every byte of elements [offset, offset + count) to `byte`, queued on the default
  // stream without waiting: work queued there later (a kernel, a copy) sees the result.
  void fill_bytes_async(unsigned char byte, std::size_t offset, std::size_t count) {
    if (count == 0) return;
    check_range(offset, count);
    CUDA_CALL(cudaMemsetAsync(data_ + offset, byte, count * sizeof(T), 0));
  }

 private:
  void check_range(std::size_t offset, std::size_t count) const {
    if (offset > count_ || count > count_ - offset) {
      throw std::out_of_range("DeviceBuffer: copy of " + std::to_string(count) + " elements at " +
                              std::to_string(offset) + " exceeds the buffer of " +
                              std::to_string(count_));
    }
  }
  void release() noexcept {
    // A destructor must not throw; a failing cudaFree (e.g. after a kernel fault) has already
    // been reported by the call that saw the fault.
    if (data_ != nullptr) (void)cudaFree(data_);
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace memtopo
