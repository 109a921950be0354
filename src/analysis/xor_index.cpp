#include "analysis/xor_index.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace memtopo {
namespace {

std::uint64_t lowest_bit(std::uint64_t v) {
  return v & (~v + 1);
}

}  // namespace

bool xor_parity(std::uint64_t mask, std::uint64_t address) {
  return (std::popcount(mask & address) & 1) != 0;
}

std::vector<std::uint64_t> reduced_basis(std::span<const std::uint64_t> vectors) {
  std::vector<std::uint64_t> rows;
  for (std::uint64_t v : vectors) {
    // Reduce by the rows so far (each pivot is set in its own row only), then add what is left.
    for (std::uint64_t row : rows) {
      if (v & lowest_bit(row)) v ^= row;
    }
    if (v == 0) continue;
    const std::uint64_t pivot = lowest_bit(v);
    for (std::uint64_t& row : rows) {
      if (row & pivot) row ^= v;
    }
    rows.push_back(v);
  }
  std::sort(rows.begin(), rows.end(),
            [](std::uint64_t a, std::uint64_t b) { return lowest_bit(a) < lowest_bit(b); });
  return rows;
}

bool in_span(std::span<const std::uint64_t> basis, std::uint64_t vector) {
  for (std::uint64_t row : reduced_basis(basis)) {
    if (vector & lowest_bit(row)) vector ^= row;
  }
  return vector == 0;
}

bool same_span(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) {
  return reduced_basis(a) == reduced_basis(b);
}

// With the kernel in reduced form (pivot p_i of row i set in row i only), each free coordinate f
// (no row's pivot) gives the mask e_f + sum of e_{p_i} over the rows i that contain f: its
// parity with row j is [row j has f] + [row j has f] = 0. These are independent (one free
// coordinate each) and as many as the annihilator's dimension.
std::vector<std::uint64_t> annihilator(std::span<const std::uint64_t> kernel,
                                       std::uint64_t coordinates) {
  std::vector<std::uint64_t> within;
  for (std::uint64_t v : kernel) within.push_back(v & coordinates);
  const std::vector<std::uint64_t> rows = reduced_basis(within);
  std::uint64_t pivots = 0;
  for (std::uint64_t row : rows) pivots |= lowest_bit(row);
  std::vector<std::uint64_t> masks;
  for (std::uint64_t free = coordinates & ~pivots; free != 0; free &= free - 1) {
    const std::uint64_t f = lowest_bit(free);
    std::uint64_t mask = f;
    for (std::uint64_t row : rows) {
      if (row & f) mask |= lowest_bit(row);
    }
    masks.push_back(mask);
  }
  return reduced_basis(masks);
}

std::vector<std::vector<std::uint32_t>> mask_bits(std::span<const std::uint64_t> masks) {
  std::vector<std::vector<std::uint32_t>> out;
  for (std::uint64_t m : masks) {
    std::vector<std::uint32_t> bits;
    for (; m != 0; m &= m - 1) bits.push_back(static_cast<std::uint32_t>(std::countr_zero(m)));
    out.push_back(std::move(bits));
  }
  return out;
}

std::vector<std::uint64_t> kernel_vectors(std::span<const std::uint64_t> congruent_addresses,
                                          std::uint64_t coordinates) {
  // Pairs only within one block of the bits outside `coordinates`: each line against the first
  // line of its block.
  std::map<std::uint64_t, std::uint64_t> first_of_block;
  std::vector<std::uint64_t> out;
  for (std::uint64_t a : congruent_addresses) {
    const auto [it, first] = first_of_block.emplace(a & ~coordinates, a);
    if (!first && a != it->second) out.push_back(a ^ it->second);
  }
  return out;
}

}  // namespace memtopo
