#include "backend/sim/shared_banks.hpp"

#include <algorithm>
#include <vector>

namespace memtopo::sim {

std::uint32_t bank_conflict_degree(std::span<const std::uint64_t> byte_addresses,
                                   std::uint32_t banks, std::uint32_t bank_width_bytes) {
  return bank_conflict_degree(byte_addresses, 1, banks, bank_width_bytes);
}

std::uint32_t bank_conflict_degree(std::span<const std::uint64_t> byte_addresses,
                                   std::uint32_t access_bytes, std::uint32_t banks,
                                   std::uint32_t bank_width_bytes) {
  std::vector<std::uint64_t> words;
  words.reserve(byte_addresses.size());
  for (std::uint64_t address : byte_addresses) {
    const std::uint64_t last = (address + access_bytes - 1) / bank_width_bytes;
    for (std::uint64_t word = address / bank_width_bytes; word <= last; ++word) {
      words.push_back(word);
    }
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());  // broadcast

  std::uint32_t degree = 0;
  for (std::uint64_t word : words) {
    const auto same_bank = std::count_if(words.begin(), words.end(), [&](std::uint64_t other) {
      return other % banks == word % banks;
    });
    degree = std::max(degree, static_cast<std::uint32_t>(same_bank));
  }
  return degree;
}

}  // namespace memtopo::sim
