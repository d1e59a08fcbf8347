// The SpecDB's ops as test parameters: one list and one name for each, for every test that runs
// per op.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "argtypes/text.h"
#include "specs/db/db.h"

namespace opsfuzz::testing {

inline std::vector<std::string> all_ops() {
  std::vector<std::string> out;
  for (const auto& s : spec_db()) out.push_back(s.op());
  return out;
}

// "add.Tensor" -> "add_Tensor", the part of a test's name that says its op.
inline std::string op_param_name(const ::testing::TestParamInfo<std::string>& info) { return identifier(info.param); }

}  // namespace opsfuzz::testing
