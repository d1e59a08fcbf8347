// Helpers shared by the suite tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "suite/suite.h"
#include "tests/tools/cli_run.h"

namespace opsfuzz::suite::testing {

inline std::string data(const std::string& name) { return std::string(OPSFUZZ_SUITE_DATA) + "/" + name; }

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

}  // namespace opsfuzz::suite::testing
