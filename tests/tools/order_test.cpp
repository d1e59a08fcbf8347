// ops-fuzz prioritize, and --order of hunt, run and prioritize: given, diversity (weighed by
// --existing) and random.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "generators/generators.h"
#include "tests/tools/cli_run.h"
#include "tools/commands.h"
#include "tools/hunt_command.h"
#include "tools/order.h"

namespace opsfuzz {
namespace {

using testing::cli;
using ::testing::HasSubstr;

struct Line {
  size_t rank;
  std::string score;  // "-" outside the diversity order
  std::string id;
  bool operator==(const Line&) const = default;
};

// prioritize's output: its header, then `rank score item` lines.
std::vector<Line> lines_of(const std::string& out) {
  std::istringstream in(out);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "rank  score   item");
  std::vector<Line> lines;
  for (Line l; in >> l.rank >> l.score >> l.id;) lines.push_back(l);
  return lines;
}

// The order of the samples of two ops, 6 per configuration: default and half, and invalid ones.
std::vector<Line> prioritized(std::vector<std::string> args, const std::string& configs = "default,half") {
  args.insert(args.begin(), {"prioritize", "--ops", "add.Tensor,mm.default", "--configs", configs, "--max", "6"});
  auto r = cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return lines_of(r.out);
}

std::vector<std::string> ids(const std::vector<Line>& lines) {
  std::vector<std::string> out;
  for (const Line& l : lines) out.push_back(l.id);
  return out;
}

struct TempFile {
  std::filesystem::path path;
  TempFile(const std::string& name, const std::string& text)
      : path(std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_" + name)) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

// prioritize: the diversity order of the samples a hunt with the same options runs.
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
  EXPECT_DOUBLE_EQ(std::stod(lines[0].score), 1.0);
  EXPECT_THAT(r.err, ::testing::HasSubstr(std::to_string(lines.size()) + " candidates of 2 ops"));
  EXPECT_EQ(cli(args).out, r.out);  // deterministic
}

TEST(Order, GivenIsTheHuntsOpByOpOrder) {
  std::vector<std::string> expected;
  OpSelection selection;
  selection.ops = {"add.Tensor", "mm.default"};
  for (const SampleUnit& unit : sample_units(selection, "default,half", true))
    for (const Sample& s : unit_samples(unit, 6, 0)) expected.push_back(unit_item_id(s, unit.words));
  const auto given = prioritized({"--order", "given"});
  EXPECT_EQ(ids(given), expected);
  for (const Line& l : given) EXPECT_EQ(l.score, "-");
}

TEST(Order, RandomIsAShuffleItsSeedFixes) {
  const auto given = ids(prioritized({"--order", "given"}));
  const auto one = ids(prioritized({"--order", "random", "--order-seed", "1"}));
  const auto two = ids(prioritized({"--order", "random", "--order-seed", "2"}));
  EXPECT_EQ(std::multiset<std::string>(one.begin(), one.end()), std::multiset<std::string>(given.begin(), given.end()));
  EXPECT_NE(one, given);
  EXPECT_NE(one, two);
  EXPECT_EQ(ids(prioritized({"--order", "random", "--order-seed", "1"})), one);
}

// An op with existing tests weighs 1 / (1 + tests): counted from a list under its overload and
// from a suite under its name, its first sample scores 1/4 and comes after every sample of the
// other op that covers more than a quarter of its classes anew.
TEST(Order, ExistingTestsPutAnOpsSamplesAfterTheOthers) {
  TempFile list("existing.txt", "# tests a backend has\nadd.Tensor 2\n");
  TempFile suite(
      "existing.yaml",
      "tests:\n  - id: add_one\n    op: aten::add\n    in:\n      - {type: tensor, shape: [2], dtype: float32}\n"
      "      - {type: tensor, shape: [2], dtype: float32}\n");
  const auto lines = prioritized({"--existing", list.path.string(), "--existing", suite.path.string()});
  auto first_add = std::find_if(lines.begin(), lines.end(), [](const Line& l) { return l.id.starts_with("add_"); });
  ASSERT_NE(first_add, lines.end());
  EXPECT_EQ(first_add->score, "0.2500");
  EXPECT_EQ(lines.front().score, "1.0000");
  EXPECT_TRUE(lines.front().id.starts_with("mm_"));
  for (auto l = lines.begin(); l != first_add; ++l) EXPECT_GE(std::stod(l->score), 0.25) << l->id;
  const auto plain = prioritized({});
  EXPECT_TRUE(plain.front().id.starts_with("add_"));  // without them, the given order breaks the tie
}

// A sample's keys see how it was generated: the same sample under another configuration covers
// new keys (the configuration, and it beside each argument's class); under the same one, none.
TEST(Order, ASamplesConfigurationIsOneOfItsClasses) {
  OpSelection selection;
  selection.ops = {"add.Tensor"};
  const Spec& spec = *select_specs(selection).front();
  const Sample s = unit_samples({&spec, "", false}, 1, 0).front();
  CandidatePool pool;
  pool.add(spec, s, "");
  pool.add(spec, s, "");
  pool.add(spec, s, "transposed");
  const std::vector<Ordered> order = pool.order(OrderOptions("diversity"));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[1].index, 2u);
  EXPECT_GT(order[1].score, 0.0);
  EXPECT_LT(order[1].score, 1.0);  // its arguments' classes are covered
  EXPECT_EQ(order[2].index, 1u);   // nothing new: after coverage starts over
}

std::vector<std::string> item_ids(const std::filesystem::path& results) {
  std::vector<std::string> out;
  std::ifstream in(results);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j["type"] == "item") out.push_back(j["id"].get<std::string>());
  }
  return out;
}

// A suite's tests are ordered by the classes of their inputs, read back by their op's spec: a suite
// of generated samples comes in the order of the samples themselves, with the same scores; a test
// with no spec to read it by comes last.
TEST(Order, ASuitesTestsInTheOrderOfTheirSamples) {
  auto generated = cli({"generate", "add.Tensor", "mm.default", "--max", "6", "--format", "yaml"});
  ASSERT_EQ(generated.code, 0) << generated.err;
  TempFile suite("prioritize_suite.yaml", generated.out);
  auto r = cli({"prioritize", suite.path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<Line> tests = lines_of(r.out);
  EXPECT_EQ(tests, prioritized({"--no-invalid"}, "default"));
  // A hunt runs a suite's items in that order too, or as the suite lists them with --order given.
  const auto dir = std::filesystem::temp_directory_path() / ("opsfuzz_order_suite_" + std::to_string(::getpid()));
  std::vector<std::string> hunted, listed;
  for (const char* order : {"diversity", "given"}) {
    std::filesystem::remove_all(dir);
    auto h =
        cli({"hunt", suite.path.string(), "--backends", "eager_cpu_fp64", "--order", order, "--out", dir.string()});
    ASSERT_EQ(h.code, 0) << h.err;
    (std::string(order) == "given" ? listed : hunted) = item_ids(dir / "results.jsonl");
  }
  std::filesystem::remove_all(dir);
  EXPECT_EQ(hunted, ids(tests));
  ASSERT_EQ(listed.size(), 12u);
  EXPECT_EQ(listed.front(), "add_Tensor__valid__0000");
  EXPECT_EQ(listed.back(), "mm_default__valid__0005");

  TempFile modules("prioritize_modules.yaml",
                   "tests:\n  - id: lin\n    op: {type: module, path: torch.nn.Linear, args: [3, 2]}\n"
                   "    in: [{type: tensor, shape: [2, 3], dtype: float32}]\n");
  auto left = cli({"prioritize", modules.path.string()});
  EXPECT_THAT(left.out, HasSubstr("1  -  lin\n"));
  EXPECT_THAT(left.err, HasSubstr("1 tests without a spec"));
}

TEST(Order, AnExistingListsErrorNamesItsLine) {
  TempFile list("bad.txt", "add.Tensor 2\nmm.default two\n");
  auto r = cli({"prioritize", "--ops", "add.Tensor", "--existing", list.path.string()});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.err, HasSubstr(list.path.string() + ":2: expected `OP [COUNT]`, not 'mm.default two'"));
}

// run and hunt run their samples in the order prioritize prints for the same selection.
TEST(Order, RunAndHuntRunTheirSamplesInThePrioritizedOrder) {
  TempFile results("order.jsonl", "");
  auto r = cli(
      {"run", "--ops", "add.Tensor,mm.default", "--max", "6", "--order", "diversity", "--out", results.path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(item_ids(results.path), ids(prioritized({"--no-invalid"}, "default")));

  const auto dir = std::filesystem::temp_directory_path() / ("opsfuzz_order_hunt_" + std::to_string(::getpid()));
  for (const char* order : {"diversity", "random"}) {
    std::filesystem::remove_all(dir);
    auto h = cli({"hunt", "--ops", "add.Tensor,mm.default", "--configs", "default,half", "--max", "6", "--backends",
                  "eager_cpu_fp64", "--order", order, "--order-seed", "3", "--out", dir.string()});
    EXPECT_THAT(h.err, HasSubstr("order: 36 samples of 2 ops made in "));
    EXPECT_EQ(item_ids(dir / "results.jsonl"), ids(prioritized({"--order", order, "--order-seed", "3"})));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace opsfuzz
