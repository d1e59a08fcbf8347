// ops-fuzz prioritize: the diversity order of the samples a hunt with the same options runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "tests/tools/cli_run.h"
#include "generators/generators.h"
#include "tools/hunt_command.h"

namespace opsfuzz {
namespace {

using testing::cli;

struct Line {
  size_t rank;
  double score;
  std::string id;
};

std::vector<Line> lines_of(const std::string& out) {
  std::istringstream in(out);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "rank  score   item");
  std::vector<Line> lines;
  for (Line l; in >> l.rank >> l.score >> l.id;) lines.push_back(l);
  return lines;
}

TEST(Prioritize, OrdersEveryItemTheHuntRunsOnceNewClassesFirst) {
  const std::vector<std::string> args = {
      "prioritize", "--ops", "add.Tensor,mm.default", "--configs", "default,half,transposed", "--max", "8"};
  auto r = cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<Line> lines = lines_of(r.out);
  // The hunt's items: two ops, three configurations and invalid samples, 8 each.
  std::set<std::string> expected;
  OpSelection selection;
  selection.ops = {"add.Tensor", "mm.default"};
  for (const SampleUnit& unit : sample_units(selection, "default,half,transposed", true))
    for (const Sample& s : unit_samples(unit, 8, 0)) expected.insert(unit_item_id(s, unit.words));
  std::set<std::string> ids;
  for (const Line& l : lines) ids.insert(l.id);
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(lines.size(), expected.size());  // each once
  for (size_t k = 0; k < lines.size(); ++k) EXPECT_EQ(lines[k].rank, k + 1);
  // Each op's first sample covers only new classes.
  ASSERT_FALSE(lines.empty());
  EXPECT_DOUBLE_EQ(lines[0].score, 1.0);
  EXPECT_THAT(r.err, ::testing::HasSubstr(std::to_string(lines.size()) + " candidates of 2 ops"));
  EXPECT_EQ(cli(args).out, r.out);  // deterministic
}

}  // namespace
}  // namespace opsfuzz
