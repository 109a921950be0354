#pragma once
// A hashed set index as XOR functions of address bits, recovered from lines known to share a set
// (Maurice et al., "Reverse engineering Intel last-level cache complex addressing using
// performance counters", RAID 2015; here without counters, from eviction sets).
//
// A linear (XOR) index maps a byte address a to set bits h(a) = M a over GF(2): bit k of the set
// is the parity of the address bits in mask k (row k of M). Two lines share a set iff
// h(a) = h(b), i.e. a XOR b lies in the kernel of M. So every pair of lines of one set gives a
// kernel vector, and the masks span the annihilator of the kernel: the masks m with
// parity(m & v) = 0 for every kernel vector v. A set of masks is only determined up to its span
// (renumbering the sets XORs index bits together), so functions here return the span in reduced
// row echelon form: two descriptions of the same index compare equal.
//
// Vectors are std::uint64_t with bit b = address bit b. Pure functions.
#include <cstdint>
#include <span>
#include <vector>

namespace memtopo {

// parity(mask & address): the index bit that `mask` computes for `address`.
bool xor_parity(std::uint64_t mask, std::uint64_t address);

// The span of `vectors` as its reduced row echelon basis: every row's pivot is its lowest set
// bit, no other row has that bit, rows ordered by pivot. Zero vectors drop out.
std::vector<std::uint64_t> reduced_basis(std::span<const std::uint64_t> vectors);

// Whether `vector` lies in the span of `basis` (any basis, not only a reduced one).
bool in_span(std::span<const std::uint64_t> basis, std::uint64_t vector);

// Whether two sets of vectors span the same subspace.
bool same_span(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b);

// The masks m within `coordinates` (a mask of the address bits considered) with
// parity(m & v) = 0 for every v in `kernel` (vectors within `coordinates`): a reduced basis of
// the annihilator. Its size is popcount(coordinates) - rank(kernel).
std::vector<std::uint64_t> annihilator(std::span<const std::uint64_t> kernel,
                                       std::uint64_t coordinates);

// The address bits of each mask, ascending: the form the findings and the sim description use.
std::vector<std::vector<std::uint32_t>> mask_bits(std::span<const std::uint64_t> masks);

// What a group of lines that share a set (byte addresses) says about the kernel: each line XOR
// the first line of its block, where a block is the lines that agree on every bit outside
// `coordinates` (e.g. one 2 MiB page: across pages the physical frames, which a chase cannot
// see, would enter the difference).
std::vector<std::uint64_t> kernel_vectors(std::span<const std::uint64_t> congruent_addresses,
                                          std::uint64_t coordinates);

}  // namespace memtopo
