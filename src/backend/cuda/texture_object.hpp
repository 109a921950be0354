#pragma once
// Owning handle to a texture object over linear device memory of 32-bit unsigned elements,
// the layout of a chase array. Destroyed in the destructor.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace memtopo {

class TextureObject {
 public:
  TextureObject() = default;
  // `words` 32-bit elements starting at `device_words` (aligned to the device's texture
  // alignment; the caller checks the width against cudaDevAttrMaxTexture1DLinearWidth).
  TextureObject(const std::uint32_t* device_words, std::size_t words);
  // `elements` vectors of `channels` (1, 2 or 4) 32-bit unsigned words each, starting at
  // `device_bytes`: what a stream reads 4-, 8- or 16-byte vectors from.
  TextureObject(const void* device_bytes, std::size_t elements, int channels);
  ~TextureObject();

  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  TextureObject(TextureObject&& other) noexcept;
  TextureObject& operator=(TextureObject&& other) noexcept;

  cudaTextureObject_t handle() const { return handle_; }

 private:
  void release() noexcept;
  cudaTextureObject_t handle_ = 0;
};

}  // namespace memtopo
