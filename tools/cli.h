// The ops-fuzz command line: one parser (CLI11) for every command.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace opsfuzz {

// Runs ops-fuzz with `args` (the command and its arguments, without the program name). Returns
// the exit code: 0 success; 1 a failed sweep, an invalid suite or failed tests; 2 bad usage.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// Parses `args` as run_cli does, without running the command (nor loading --load's libraries):
// 0 when they parse (or --help printed the help), 2 on bad usage.
int parse_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace opsfuzz
