// ops-fuzz: generate inputs for ATen operators from the SpecDB, and run them.
#include <ATen/Parallel.h>

#include <iostream>

#include "tools/cli.h"

int main(int argc, char** argv) {
  at::set_num_threads(1);  // samples run in workers forked from this process
  return opsfuzz::run_cli({argv + 1, argv + argc}, std::cout, std::cerr);
}
