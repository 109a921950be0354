#pragma once
// One load per LoadPath, in inline PTX, untimed (load_next) and timed (timed_load).
//
// Why inline PTX for every path, texture included: the timed sequence must stay, in this
// order, `%clock; load; dependent st.shared; %clock`. Separate statements (an intrinsic
// between two clock reads) leave the compiler free to hoist a load that has no memory side
// effect, such as tex1Dfetch, above the first clock read. One asm volatile statement with a
// memory clobber cannot be split, reordered or removed by the compiler; ptxas still schedules
// the SASS freely, so scripts/checks/check-sass checks the result.
#include <cstdint>

#include "backend/experiment.hpp"

namespace memtopo {

// Where a chaser's chain lives; each path reads only its own field.
struct ChainView {
  const std::uint32_t* global = nullptr;  // ca, cg, cv, nc
  std::uint64_t texture = 0;              // tex: cudaTextureObject_t
  std::uint64_t constant = 0;             // const: address of the chain in the constant space
  std::uint32_t shared = 0;               // shared: address of the chain in the shared space
};

struct TimedLoad {
  std::uint32_t next;   // the loaded value: the index of the next word
  std::uint32_t start;  // %clock before the load
  std::uint32_t end;    // %clock after the dependent store
};

template <LoadPath P>
struct PathLoads;  // specialised for every LoadPath below

// Paths whose load takes one address operand. `CONSTRAINT` is the operand's register class
// ("l": 64-bit, "r": 32-bit), `ADDRESS` the address of word j. The address is computed
// before the first clock read, so the timed window holds only the load and the store.
#define MEMTOPO_ADDRESS_PATH(PATH, LOAD, CONSTRAINT, ADDRESS)                                  \
  template <>                                                                                  \
  struct PathLoads<LoadPath::PATH> {                                                           \
    static __device__ __forceinline__ std::uint32_t next(const ChainView& chain,               \
                                                         std::uint32_t j) {                    \
      std::uint32_t loaded;                                                                    \
      asm volatile(LOAD " %0, [%1];" : "=r"(loaded) : CONSTRAINT(ADDRESS) : "memory");         \
      return loaded;                                                                           \
    }                                                                                          \
    static __device__ __forceinline__ TimedLoad timed(const ChainView& chain, std::uint32_t j, \
                                                      std::uint32_t record) {                  \
      TimedLoad t;                                                                             \
      asm volatile("mov.u32 %0, %%clock;\n\t" LOAD                                             \
                   " %1, [%3];\n\t"                                                            \
                   "st.shared.u32 [%4], %1;\n\t"                                               \
                   "mov.u32 %2, %%clock;"                                                      \
                   : "=&r"(t.start), "=&r"(t.next), "=r"(t.end)                                \
                   : CONSTRAINT(ADDRESS), "r"(record)                                          \
                   : "memory");                                                                \
      return t;                                                                                \
    }                                                                                          \
  };

MEMTOPO_ADDRESS_PATH(ca, "ld.global.ca.u32", "l", chain.global + j)
MEMTOPO_ADDRESS_PATH(cg, "ld.global.cg.u32", "l", chain.global + j)
MEMTOPO_ADDRESS_PATH(cv, "ld.global.cv.u32", "l", chain.global + j)
MEMTOPO_ADDRESS_PATH(nc, "ld.global.nc.u32", "l", chain.global + j)
MEMTOPO_ADDRESS_PATH(constant, "ld.const.u32", "l", chain.constant + 4ull * j)
MEMTOPO_ADDRESS_PATH(shared, "ld.shared.u32", "r", chain.shared + 4u * j)

#undef MEMTOPO_ADDRESS_PATH

// tex1Dfetch<unsigned>(texture, j), written out: a 1D fetch from a linear texture returns
// four components; only x carries the element.
template <>
struct PathLoads<LoadPath::tex> {
  static __device__ __forceinline__ std::uint32_t next(const ChainView& chain, std::uint32_t j) {
    std::uint32_t loaded;
    asm volatile(
        "{\n\t.reg .u32 y, z, w;\n\t"
        "tex.1d.v4.u32.s32 {%0, y, z, w}, [%1, {%2}];\n\t}"
        : "=r"(loaded)
        : "l"(chain.texture), "r"(j)
        : "memory");
    return loaded;
  }
  static __device__ __forceinline__ TimedLoad timed(const ChainView& chain, std::uint32_t j,
                                                    std::uint32_t record) {
    TimedLoad t;
    asm volatile(
        "{\n\t.reg .u32 y, z, w;\n\t"
        "mov.u32 %0, %%clock;\n\t"
        "tex.1d.v4.u32.s32 {%1, y, z, w}, [%3, {%4}];\n\t"
        "st.shared.u32 [%5], %1;\n\t"
        "mov.u32 %2, %%clock;\n\t}"
        : "=&r"(t.start), "=&r"(t.next), "=r"(t.end)
        : "l"(chain.texture), "r"(j), "r"(record)
        : "memory");
    return t;
  }
};

// The untimed dependent load of the warm passes: the same instruction as the timed one.
template <LoadPath P>
__device__ __forceinline__ std::uint32_t load_next(const ChainView& chain, std::uint32_t j) {
  return PathLoads<P>::next(chain, j);
}

// `%clock; load word j; st.shared [record], loaded; %clock`.
template <LoadPath P>
__device__ __forceinline__ TimedLoad timed_load(const ChainView& chain, std::uint32_t j,
                                                std::uint32_t record) {
  return PathLoads<P>::timed(chain, j, record);
}

// Wide chains (ChaseSpec::wide_indices): 64-bit elements holding the word index of the next,
// for arrays past 2^32 words; global paths ca and cg only. The same timed sequence with a
// 64-bit load and a 64-bit dependent store.
struct WideTimedLoad {
  std::uint64_t next;   // the loaded value: the word index of the next element
  std::uint32_t start;  // %clock before the load
  std::uint32_t end;    // %clock after the dependent store
};

template <LoadPath P>
struct WidePathLoads;  // specialised for ca and cg below

#define MEMTOPO_WIDE_PATH(PATH, LOAD)                                                              \
  template <>                                                                                      \
  struct WidePathLoads<LoadPath::PATH> {                                                           \
    static __device__ __forceinline__ std::uint64_t next(const ChainView& chain,                   \
                                                         std::uint64_t j) {                        \
      std::uint64_t loaded;                                                                        \
      asm volatile(LOAD " %0, [%1];" : "=l"(loaded) : "l"(chain.global + j) : "memory");           \
      return loaded;                                                                               \
    }                                                                                              \
    static __device__ __forceinline__ WideTimedLoad timed(const ChainView& chain, std::uint64_t j, \
                                                          std::uint32_t record) {                  \
      WideTimedLoad t;                                                                             \
      asm volatile("mov.u32 %0, %%clock;\n\t" LOAD                                                 \
                   " %1, [%3];\n\t"                                                                \
                   "st.shared.u64 [%4], %1;\n\t"                                                   \
                   "mov.u32 %2, %%clock;"                                                          \
                   : "=&r"(t.start), "=&l"(t.next), "=r"(t.end)                                    \
                   : "l"(chain.global + j), "r"(record)                                            \
                   : "memory");                                                                    \
      return t;                                                                                    \
    }                                                                                              \
  };

MEMTOPO_WIDE_PATH(ca, "ld.global.ca.u64")
MEMTOPO_WIDE_PATH(cg, "ld.global.cg.u64")

#undef MEMTOPO_WIDE_PATH

// The wide chain's untimed and timed loads: overloads on the index type.
template <LoadPath P>
__device__ __forceinline__ std::uint64_t load_next(const ChainView& chain, std::uint64_t j) {
  return WidePathLoads<P>::next(chain, j);
}
template <LoadPath P>
__device__ __forceinline__ WideTimedLoad timed_load(const ChainView& chain, std::uint64_t j,
                                                    std::uint32_t record) {
  return WidePathLoads<P>::timed(chain, j, record);
}

// The timed sequence with the load replaced by a register move of `value` (which the
// compiler cannot fold: it comes from the job descriptor): what timing costs by itself.
__device__ __forceinline__ std::uint32_t timed_overhead(std::uint32_t value, std::uint32_t record) {
  std::uint32_t start, end;
  asm volatile(
      "{\n\t.reg .u32 moved;\n\t"
      "mov.u32 %0, %%clock;\n\t"
      "mov.u32 moved, %2;\n\t"
      "st.shared.u32 [%3], moved;\n\t"
      "mov.u32 %1, %%clock;\n\t}"
      : "=&r"(start), "=r"(end)
      : "r"(value), "r"(record)
      : "memory");
  return end - start;  // unsigned: correct across a wrap of the 32-bit clock
}

}  // namespace memtopo
