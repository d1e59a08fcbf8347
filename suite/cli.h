// The suite commands of ops-fuzz: validate-yaml, list-tests, run-eager.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace opsfuzz::suite {

// Runs `command` with its arguments (without the program and command names); returns the
// process exit code: 0 success, 1 invalid suite or failed tests, 2 bad usage.
int run_cli(const std::string& command, const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);

// Whether run_cli handles `command`.
bool is_cli_command(const std::string& command);

// The usage text of the three commands (a few lines each), for the program's help.
std::string cli_usage();

}  // namespace opsfuzz::suite
