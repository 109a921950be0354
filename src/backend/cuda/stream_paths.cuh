#pragma once
// Vector loads and stores of the stream kernels, one per LoadPath, in inline PTX: the chase's
// pattern (chase_paths.cuh) for 4-, 8- and 16-byte vectors.
//
// Each is one `asm volatile` statement: the compiler can neither drop it, nor merge two, nor
// hoist it out of the loop (a load of the same address in every pass would otherwise be loop
// invariant), while ptxas still schedules the independent loads of an iteration freely. No
// "memory" clobber: nothing orders a stream's loads but their use.
//
// What each must compile to on sm_90 (scripts/checks/check-stream-sass checks it):
//   ca      ld.global.v{1,2,4}.u32 (weak, default cache operator .ca)  LDG.E[.64|.128]
//   cg      ld.global.cg                                          LDG.E[.64|.128].STRONG.GPU
//   nc      ld.global.nc                                          LDG.E[.64|.128].CONSTANT
//   tex     tex.1d.v4.u32.s32 on a 1-, 2- or 4-channel texture    TEX / TLD
//   shared  ld.shared                                             LDS[.64|.128]
//   stores  st.global.v4.u32 / st.shared.v4.u32                   STG.E.128 / STS.128
// The ca stream uses the weak form: ld.global.ca spelled out compiles to LDG.E.STRONG.SM (the
// chase's form), which is served by L1 alike; the weak form is what ordinary code compiles to.
#include <cstdint>

#include "backend/experiment.hpp"

namespace memtopo {

// One vector of V bytes as 32-bit words.
template <unsigned V>
struct Words {
  static_assert(V == 4 || V == 8 || V == 16, "vectors of 4, 8 or 16 bytes");
  std::uint32_t w[V / 4];
};

// Where a stream reads and writes; each path uses its own fields.
struct StreamView {
  const unsigned char* global = nullptr;  // ca, cg, nc reads
  unsigned char* global_out = nullptr;    // global writes
  std::uint64_t texture = 0;              // tex
  std::uint32_t shared = 0;               // shared reads (shared-space address of the window)
  std::uint32_t shared_out = 0;           // shared writes
};

template <LoadPath P>
struct StreamLoads;  // specialised below

// Every specialisation has
//   Address                    the operand of the PTX load ("l": a 64-bit pointer, "r": a
//                              32-bit shared-space address or a texture element index);
//   address<V>(view, offset)   the address of an iteration's first vector, `offset` bytes in;
//   at<V>(address, bytes)      `bytes` (a compile-time constant) further on, which ptxas folds
//                              into the instruction's immediate offset;
//   load(view, words, address) the load itself.
#define MEMTOPO_STREAM_LOADS(LOAD, CONSTRAINT)                                                 \
  static __device__ __forceinline__ void load(const StreamView&, Words<4>& v, Address a) {     \
    asm volatile(LOAD ".u32 %0, [%1];" : "=r"(v.w[0]) : CONSTRAINT(a));                        \
  }                                                                                            \
  static __device__ __forceinline__ void load(const StreamView&, Words<8>& v, Address a) {     \
    asm volatile(LOAD ".v2.u32 {%0, %1}, [%2];" : "=r"(v.w[0]), "=r"(v.w[1]) : CONSTRAINT(a)); \
  }                                                                                            \
  static __device__ __forceinline__ void load(const StreamView&, Words<16>& v, Address a) {    \
    asm volatile(LOAD ".v4.u32 {%0, %1, %2, %3}, [%4];"                                        \
                 : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])                      \
                 : CONSTRAINT(a));                                                             \
  }

#define MEMTOPO_GLOBAL_STREAM_PATH(PATH, LOAD)                                           \
  template <>                                                                            \
  struct StreamLoads<LoadPath::PATH> {                                                   \
    using Address = const unsigned char*;                                                \
    template <unsigned V>                                                                \
    static __device__ __forceinline__ Address address(const StreamView& view,            \
                                                      std::uint64_t offset) {            \
      return view.global + offset;                                                       \
    }                                                                                    \
    template <unsigned V>                                                                \
    static __device__ __forceinline__ Address at(Address a, std::uint32_t byte_offset) { \
      return a + byte_offset;                                                            \
    }                                                                                    \
    MEMTOPO_STREAM_LOADS(LOAD, "l")                                                      \
  };

MEMTOPO_GLOBAL_STREAM_PATH(ca, "ld.global")
MEMTOPO_GLOBAL_STREAM_PATH(cg, "ld.global.cg")
MEMTOPO_GLOBAL_STREAM_PATH(nc, "ld.global.nc")

#undef MEMTOPO_GLOBAL_STREAM_PATH

template <>
struct StreamLoads<LoadPath::shared> {
  using Address = std::uint32_t;
  template <unsigned V>
  static __device__ __forceinline__ Address address(const StreamView& view, std::uint64_t offset) {
    return view.shared + static_cast<std::uint32_t>(offset);
  }
  template <unsigned V>
  static __device__ __forceinline__ Address at(Address a, std::uint32_t byte_offset) {
    return a + byte_offset;
  }
  MEMTOPO_STREAM_LOADS("ld.shared", "r")
};

#undef MEMTOPO_STREAM_LOADS

// A texture of V-byte elements (V / 4 channels of 32 bits): the address is an element index.
// tex.1d always returns four components; a 1- or 2-channel texture fills only the first.
template <>
struct StreamLoads<LoadPath::tex> {
  using Address = std::uint32_t;
  template <unsigned V>
  static __device__ __forceinline__ Address address(const StreamView&, std::uint64_t offset) {
    return static_cast<std::uint32_t>(offset / V);
  }
  template <unsigned V>
  static __device__ __forceinline__ Address at(Address index, std::uint32_t byte_offset) {
    return index + byte_offset / V;
  }
  template <unsigned V>
  static __device__ __forceinline__ void load(const StreamView& view, Words<V>& v, Address index) {
    std::uint32_t c[4];
    asm volatile("tex.1d.v4.u32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
                 : "=r"(c[0]), "=r"(c[1]), "=r"(c[2]), "=r"(c[3])
                 : "l"(view.texture), "r"(index));
#pragma unroll
    for (unsigned i = 0; i < V / 4; ++i) v.w[i] = c[i];
  }
};

// 16-byte stores to global or shared memory.
__device__ __forceinline__ void store_global(unsigned char* at, const Words<16>& v) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(at), "r"(v.w[0]), "r"(v.w[1]),
               "r"(v.w[2]), "r"(v.w[3]));
}
__device__ __forceinline__ void store_shared(std::uint32_t at, const Words<16>& v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(at), "r"(v.w[0]), "r"(v.w[1]),
               "r"(v.w[2]), "r"(v.w[3]));
}

// Folds a loaded vector into the live value: the vector's words first, on their own, so that
// the chain through `live` is one LOP3 per vector, not one per word.
template <unsigned V>
__device__ __forceinline__ std::uint32_t fold(std::uint32_t live, const Words<V>& v) {
  std::uint32_t folded = v.w[0];
#pragma unroll
  for (unsigned i = 1; i < V / 4; ++i) folded ^= v.w[i];
  return live ^ folded;
}

}  // namespace memtopo
