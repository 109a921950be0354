#include <iostream>

#include "cli/app.hpp"
#include "cli/standard_streams.hpp"

int main(int argc, char** argv) {
  memtopo::guard_standard_streams();
  const int code = memtopo::run_memtopo(argc, argv, std::cout, std::cerr);
  return memtopo::check_standard_output(code, std::cerr);
}
