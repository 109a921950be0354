#include <iostream>

#include "cli/app.hpp"

int main(int argc, char** argv) {
  return memtopo::run_memtopo(argc, argv, std::cout, std::cerr);
}
