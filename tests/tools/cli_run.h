// Runs the ops-fuzz command line in-process, capturing its output.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "tools/cli.h"

namespace opsfuzz::testing {

struct Run {
  int code;
  std::string out, err;
};

inline Run cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace opsfuzz::testing
