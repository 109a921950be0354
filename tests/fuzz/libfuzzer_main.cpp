// libFuzzer driver of one fuzz target (MEMTOPO_LIBFUZZER=ON; see CMakeLists.txt). A rejection is
// a normal outcome; anything that escapes, crashes or hangs is what libFuzzer reports.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
#if defined(MEMTOPO_FUZZ_TARGET_sim_description)
  memtopo::fuzz::load_sim_description(input);
#elif defined(MEMTOPO_FUZZ_TARGET_compare_input)
  memtopo::fuzz::compare_runs(input);
#else
  memtopo::fuzz::read_topology_json(input);
#endif
  return 0;
}
