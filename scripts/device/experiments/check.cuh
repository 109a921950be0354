#pragma once
// The experiments' one error check: file:line, the call and the error's name, then exit 1.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t status_ = (call);                                                    \
    if (status_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorName(status_));                                       \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)
