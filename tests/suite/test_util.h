// Helpers shared by the suite tests.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "suite/suite.h"
#include "tools/cli.h"

namespace opsfuzz::suite::testing {

inline std::string data(const std::string& name) {
  return std::string(OPSFUZZ_SUITE_DATA) + "/" + name;
}

inline std::vector<std::string> ids(const Suite& s) {
  std::vector<std::string> out;
  for (const auto& t : s.tests) out.push_back(t.id);
  return out;
}

// Loads YAML text that must be valid.
inline Suite valid(const std::string& yaml) {
  LoadResult r = read_suite_text(yaml, "t.yaml");
  EXPECT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str();
  return std::move(r.suite);
}

// Loads YAML text that must be invalid; returns all its diagnostics as text.
inline std::string errors(const std::string& yaml) {
  LoadResult r = read_suite_text(yaml, "t.yaml");
  EXPECT_TRUE(r.diagnostics.has_errors()) << "expected errors in:\n" << yaml;
  return r.diagnostics.str();
}

struct CliResult {
  int code;
  std::string out, err;
};

// Runs `ops-fuzz COMMAND ARGS...` in this process.
inline CliResult cli(const std::string& command, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  std::vector<std::string> all = {command};
  all.insert(all.end(), args.begin(), args.end());
  int code = opsfuzz::run_cli(all, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace opsfuzz::suite::testing
