// ops-fuzz run: resuming a killed run, results files, the summary and exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "runner/results.h"
#include "tests/tools/cli_run.h"

namespace opsfuzz {
namespace {

using testing::cli;
using ::testing::HasSubstr;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("opsfuzz_run_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The item ids of a results file, in order (a cut last line is skipped).
std::vector<std::string> item_ids(const std::string& path) {
  std::vector<std::string> ids;
  runner::for_each_item_record(path, [&](const nlohmann::json& j) { ids.push_back(j["id"]); });
  return ids;
}

std::vector<std::string> run_args(const std::string& out) {
  return {"run",
          "--ops",
          "add.Tensor,relu.default",
          "--max",
          "150",
          "--backends",
          "torchscript_cpu",
          "--baseline",
          "eager_cpu",
          "--out",
          out};
}

TEST(RunCommand, AKilledRunResumedGivesTheItemsOfAnUninterruptedOne) {
  std::string whole = temp_path("whole.jsonl"), part = temp_path("part.jsonl");
  cli(run_args(whole));  // its exit code says whether TorchScript agreed everywhere: not the point here
  std::vector<std::string> expected = item_ids(whole);
  ASSERT_EQ(expected.size(), 300u);

  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cli(run_args(part));
    ::_exit(0);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (item_ids(part).size() < 30 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  size_t before = item_ids(part).size();
  ASSERT_GE(before, 30u);
  ASSERT_LT(before, 300u) << "the run finished before it could be killed";

  auto args = run_args(part);
  args.push_back("--resume");
  auto resumed = cli(args);
  EXPECT_THAT(resumed.err, HasSubstr("resume: " + std::to_string(before) + " of 300 items already in"));
  std::vector<std::string> got = item_ids(part);
  EXPECT_EQ(got.size(), 300u);  // none twice
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
  for (const auto& line : lines_of(part)) EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  std::filesystem::remove(whole);
  std::filesystem::remove(part);
}

TEST(RunCommand, SummaryJunitAndExitCodes) {
  std::string junit = temp_path("junit.xml");
  auto ok = cli({"run", "--ops", "mm.default", "--max", "5", "--backends", "eager_cpu_fp64;eager_cpu_noncontig",
                 "--baseline", "eager_cpu", "--junit", junit});
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("eager_cpu_noncontig"));
  EXPECT_THAT(ok.out, HasSubstr("5 items, 0 failing"));
  std::ifstream in(junit);
  std::string xml((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"opsfuzz\" tests=\"15\" failures=\"0\""));
  EXPECT_THAT(xml, HasSubstr("classname=\"eager_cpu_fp64\" name=\"mm_default__valid__0000\""));
  std::filesystem::remove(junit);

  // Invalid samples are refused by eager and the non-contiguous run alike: expected, exit 0.
  auto invalid = cli({"run", "--ops", "mm.default", "--invalid", "--max", "5", "--backends", "eager_cpu_noncontig",
                      "--baseline", "eager_cpu"});
  EXPECT_EQ(invalid.code, 0) << invalid.out;
  EXPECT_THAT(invalid.out, HasSubstr("INFER_FAIL"));

  EXPECT_EQ(cli({"run", "--backends", "eager_cpu"}).code, 2);  // nothing named to run
  auto unknown = cli({"run", "--ops", "mm.default", "--backends", "eager_gpu"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("unknown backend 'eager_gpu'"));
  auto listed = cli({"list-backends"});
  EXPECT_THAT(listed.out, HasSubstr("torchscript_cpu_fused_dynamic"));
}

// After its summary, run names each failing item with the command that reruns it alone.
TEST(RunCommand, ListsTheFailingItemsWithTheirCommands) {
  std::string yaml = temp_path("off_by_one.yaml");
  std::ofstream(yaml) << R"(tests:
  - id: right
    op: aten::add.Tensor
    in: [{type: const_tensor, shape: [2], dtype: int64, value: [1, 2]}, {type: const_tensor, shape: [2], dtype: int64, value: [10, 20]}]
    out: {type: const_tensor, shape: [2], dtype: int64, value: [11, 22]}
  - id: off_by_one
    op: aten::add.Tensor
    in: [{type: const_tensor, shape: [2], dtype: int64, value: [1, 2]}, {type: const_tensor, shape: [2], dtype: int64, value: [10, 20]}]
    out: {type: const_tensor, shape: [2], dtype: int64, value: [11, 23]}
)";
  auto r = cli({"run", yaml, "--backends", "eager_cpu"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 items, 1 failing"));
  EXPECT_THAT(r.out, HasSubstr("failing:\n  off_by_one  eager_cpu  not the expected output: "));
  EXPECT_THAT(r.out, HasSubstr("    ops-fuzz run " + yaml + " --test-ids off_by_one --seed 0 --backends eager_cpu\n"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("  right  ")));
  std::filesystem::remove(yaml);

  // A SpecDB sample's command reruns that sample alone: --index, which the rerun honours.
  auto one = cli({"run", "--ops", "mm.default", "--seed", "3", "--index", "2", "--backends", "eager_cpu"});
  EXPECT_EQ(one.code, 0) << one.out << one.err;
  EXPECT_THAT(one.out, HasSubstr("1 items, 0 failing"));
}

// The readers of results files (--resume, report, apfd): a line that is not an item record is
// passed over, as a cut last line is; an item record that does not read back is named by its
// file and line.
TEST(RunCommand, AnItemRecordThatDoesNotReadIsNamedByItsLine) {
  std::string path = temp_path("bad_records.jsonl");
  std::ofstream(path) << R"({"type": "meta"}
{"type": 1, "id": 2}
{"type": "item", "id": 3}
{"type": "item", "id": "x", "cases": 7}
)";
  EXPECT_EQ(runner::completed_items(path), (std::set<std::string>{"x"}));
  try {
    runner::for_each_recorded_item(path, [](runner::RecordedItem&&) { FAIL() << "no record reads"; });
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::StartsWith(path + ":4: an item record that does not read: "));
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace opsfuzz
