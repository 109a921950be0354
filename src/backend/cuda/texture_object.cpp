#include "backend/cuda/texture_object.hpp"

#include <utility>

#include "backend/cuda/cuda_call.hpp"

namespace memtopo {

TextureObject::TextureObject(const std::uint32_t* device_words, std::size_t words)
    : TextureObject(device_words, words, 1) {}

TextureObject::TextureObject(const void* device_bytes, std::size_t elements, int channels) {
  const auto bits = [&](int channel) { return channel < channels ? 32 : 0; };
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = const_cast<void*>(device_bytes);
  resource.res.linear.desc =
      cudaCreateChannelDesc(bits(0), bits(1), bits(2), bits(3), cudaChannelFormatKindUnsigned);
  resource.res.linear.sizeInBytes = elements * sizeof(std::uint32_t) * channels;
  cudaTextureDesc texture{};
  texture.readMode = cudaReadModeElementType;  // integer element fetch, no normalisation
  CUDA_CALL(cudaCreateTextureObject(&handle_, &resource, &texture, nullptr));
}

TextureObject::~TextureObject() {
  release();
}

TextureObject::TextureObject(TextureObject&& other) noexcept
    : handle_(std::exchange(other.handle_, 0)) {}

TextureObject& TextureObject::operator=(TextureObject&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

void TextureObject::release() noexcept {
  if (handle_ != 0) (void)cudaDestroyTextureObject(handle_);
  handle_ = 0;
}

}  // namespace memtopo
