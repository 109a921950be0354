#include "backend/cuda/texture_object.hpp"

#include <utility>

#include "backend/cuda/cuda_call.hpp"

namespace memtopo {

TextureObject::TextureObject(const std::uint32_t* device_words, std::size_t words) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = const_cast<std::uint32_t*>(device_words);
  resource.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
  resource.res.linear.sizeInBytes = words * sizeof(std::uint32_t);
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
