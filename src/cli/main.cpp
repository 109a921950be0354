#include <iostream>

#include "cli/app.hpp"
#include "cli/standard_streams.hpp"
#include "model/startup_clock.hpp"

int main(int argc, char** argv) {
  memtopo::start_startup_clock();  // run.startup counts from here
  memtopo::guard_standard_streams();
  const int code = memtopo::run_memtopo(argc, argv, std::cout, std::cerr);
  return memtopo::check_standard_output(code, std::cerr);
}
