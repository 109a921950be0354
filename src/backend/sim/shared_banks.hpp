#pragma once
// Shared-memory bank conflicts, as a pure function so that tests and probes can use it.
#include <cstdint>
#include <span>

namespace memtopo::sim {

// The number of serialised passes one warp's shared-memory load needs: the largest count of
// distinct bank_width_bytes-wide words that fall into one bank. Lanes reading the same word
// share one pass (broadcast). `byte_addresses` are the active lanes' addresses (at most one
// warp, 32); no lanes means no pass (0). bank_width_bytes must be positive.
std::uint32_t bank_conflict_degree(std::span<const std::uint64_t> byte_addresses,
                                   std::uint32_t banks, std::uint32_t bank_width_bytes);

// The same for loads of `access_bytes` each (a 4, 8 or 16 B word per lane, aligned to its
// size): a lane's load covers every bank_width_bytes-wide word its bytes fall into, so a load
// wider than a bank occupies several banks (8 B on 4 B banks: two), and the warp's distinct
// words are counted per bank as above. With access_bytes <= bank_width_bytes this is the
// function above. access_bytes must be positive.
std::uint32_t bank_conflict_degree(std::span<const std::uint64_t> byte_addresses,
                                   std::uint32_t access_bytes, std::uint32_t banks,
                                   std::uint32_t bank_width_bytes);

}  // namespace memtopo::sim
