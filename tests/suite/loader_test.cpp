// Includes: relative paths, order, diamonds, cycles, conflicting definitions.
#include "test_util.h"

namespace opsfuzz::suite {
namespace {

using testing::data;
using testing::ids;

TEST(Includes, DepthFirstOrderAndDiamondsContributeOnce) {
  LoadResult r = read_suite(data("include/root.yaml"));
  ASSERT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str();
  // common.yaml is reached from sub/a.yaml and from b.yaml: its test appears once, first.
  EXPECT_EQ(ids(r.suite), (std::vector<std::string>{"aten__relu__0", "a1", "b1", "r1"}));
  // Presets defined equally in two files (key order aside) merge silently.
  EXPECT_EQ(r.suite.tests[3].in[1].shape, (std::vector<int64_t>{4}));
}

TEST(Includes, PathsRelativeToTheIncludingFile) {
  LoadResult r = read_suite(data("include/sub/a.yaml"));
  ASSERT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str();
  EXPECT_EQ(ids(r.suite), (std::vector<std::string>{"aten__relu__0", "a1"}));
}

TEST(Includes, CyclesAreErrorsShowingTheChain) {
  LoadResult r = read_suite(data("include/cycle_a.yaml"));
  std::string e = r.diagnostics.str();
  EXPECT_NE(e.find("cycle_b.yaml:1:11: error: include: include cycle: "), std::string::npos) << e;
  EXPECT_NE(e.find("cycle_a.yaml -> "), std::string::npos) << e;
  EXPECT_NE(e.find("cycle_b.yaml -> "), std::string::npos) << e;
}

TEST(Includes, ConflictingDefinitionsNameBothFiles) {
  LoadResult r = read_suite(data("include/conflict_root.yaml"));
  std::string e = r.diagnostics.str();
  EXPECT_NE(e.find("conflict_2.yaml:1:8: error: dims.N: dim 'N' is defined differently in "), std::string::npos) << e;
  EXPECT_NE(e.find("conflict_1.yaml and "), std::string::npos) << e;
  EXPECT_NE(e.find("conflict_root.yaml:1:45: error: cannot read suite file"), std::string::npos) << e;
  EXPECT_EQ(r.diagnostics.error_count(), 2u) << e;
}

TEST(Includes, MissingRootFile) {
  auto r = opsfuzz::testing::cli({"validate-yaml", data("no_such_file.yaml")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot read suite file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opsfuzz::suite
