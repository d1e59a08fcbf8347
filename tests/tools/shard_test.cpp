// Sharding: run and sweep split by --shard I/N, and merge joins the shards' results into what one
// unsharded run writes (up to record order and timings).
#include <ATen/Parallel.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/tools/cli_run.h"

namespace opsfuzz {
namespace {

using nlohmann::json;
using testing::cli;
using ::testing::HasSubstr;

constexpr int kShards = 3;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("opsfuzz_shard_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string shard_path(int i, const char* ext) { return temp_path("shard" + std::to_string(i) + ext); }
std::string shard_arg(int i) { return std::to_string(i) + "/" + std::to_string(kShards); }

std::vector<json> records(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

std::vector<std::string> item_ids(const std::vector<json>& records) {
  std::vector<std::string> ids;
  for (const json& r : records)
    if (r["type"] == "item") ids.push_back(r["id"]);
  return ids;
}

// A record without what depends on timing: when the run began, latencies.
json without_timings(json r) {
  if (r["type"] == "meta") r["meta"].erase("created_at");
  if (r.contains("baseline") && r["baseline"].is_object()) r["baseline"].erase("ms");
  if (r.contains("backends"))
    for (json& b : r["backends"]) {
      b.erase("times_all");
      for (json& side : b["res"]) side.erase("ms");
    }
  return r;
}

// The records of a results file as a multiset, without timings.
std::vector<std::string> comparable(const std::vector<json>& records) {
  std::vector<std::string> out;
  for (const json& r : records) out.push_back(without_timings(r).dump());
  std::sort(out.begin(), out.end());
  return out;
}

json sweep_report(const std::string& path) {
  json j = json::parse(std::ifstream(path));
  for (json& op : j["ops"]) op.erase("seconds");
  return j;
}

const std::vector<std::string> kRun = {"run",        "--ops",    "add.Tensor,mm.default,abs.default", "--max", "7",
                                       "--backends", "eager_cpu"};
const std::vector<std::string> kSweep = {"sweep", "--ops", "add.Tensor,mm.default,abs.default,relu.default", "--max",
                                         "7"};

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

// The unsharded run and its three shards, run once for every test.
class Shards : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    at::set_num_threads(1);  // items run in forked workers
    whole_ = new testing::Run(cli(with(kRun, {"--out", temp_path("whole.jsonl")})));
    for (int i = 0; i < kShards; ++i)
      parts_.push_back(cli(with(kRun, {"--shard", shard_arg(i), "--out", shard_path(i, ".jsonl")})));
  }
  static void TearDownTestSuite() {
    for (int i = 0; i < kShards; ++i) std::filesystem::remove(shard_path(i, ".jsonl"));
    std::filesystem::remove(temp_path("whole.jsonl"));
    delete whole_;
  }
  static std::vector<std::string> shard_files() {
    std::vector<std::string> files;
    for (int i = 0; i < kShards; ++i) files.push_back(shard_path(i, ".jsonl"));
    return files;
  }
  static testing::Run* whole_;
  static std::vector<testing::Run> parts_;
};
testing::Run* Shards::whole_ = nullptr;
std::vector<testing::Run> Shards::parts_;

TEST_F(Shards, RunShardsPartitionTheItemsAndMergeIntoTheUnshardedFile) {
  ASSERT_EQ(whole_->code, 0) << whole_->err;
  std::vector<json> whole = records(temp_path("whole.jsonl"));
  std::vector<std::string> expected = item_ids(whole);
  ASSERT_EQ(expected.size(), 21u);
  std::multiset<std::string> union_of_shards;
  for (int i = 0; i < kShards; ++i) {
    ASSERT_EQ(parts_[i].code, 0) << parts_[i].err;
    EXPECT_THAT(parts_[i].err, HasSubstr("run: shard " + shard_arg(i) + ": 7 of 21 items\n"));
    EXPECT_THAT(parts_[i].out, HasSubstr("shard " + shard_arg(i) + ": 7 items, 0 failing"));
    std::vector<json> part = records(shard_path(i, ".jsonl"));
    EXPECT_EQ(part.front()["meta"]["extra"]["shard"], shard_arg(i));
    std::vector<std::string> ids = item_ids(part);
    for (size_t j = 0; j < ids.size(); ++j) EXPECT_EQ(ids[j], expected[j * kShards + i]);  // item k in shard k % N
    union_of_shards.insert(ids.begin(), ids.end());
  }
  EXPECT_EQ(union_of_shards, std::multiset<std::string>(expected.begin(), expected.end()));  // none twice

  std::string merged = temp_path("merged.jsonl");
  std::vector<std::string> args = {"merge", merged};
  for (const auto& f : shard_files()) args.push_back(f);
  auto m = cli(args);
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_THAT(m.out, HasSubstr("3 shards, 21 items"));
  std::vector<json> got = records(merged);
  EXPECT_EQ(comparable(got), comparable(whole));
  EXPECT_EQ(item_ids(got), expected);  // even in the unsharded order
  std::filesystem::remove(merged);
}

TEST_F(Shards, SweepShardsMergeIntoTheUnshardedReport) {
  auto whole = cli(with(kSweep, {"--json", temp_path("sweep.json")}));
  ASSERT_EQ(whole.code, 0) << whole.err;
  std::vector<std::string> args = {"merge", temp_path("sweep_merged.json")};
  std::set<std::string> ops;
  for (int i = 0; i < kShards; ++i) {
    std::string part = shard_path(i, ".json");
    auto r = cli(with(kSweep, {"--shard", shard_arg(i), "--json", part}));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("sweep: shard " + shard_arg(i) + ": " + (i == 0 ? "2" : "1") + " of 4 ops"));
    json report = sweep_report(part);
    EXPECT_EQ(report["shard"], shard_arg(i));
    for (const json& op : report["ops"]) EXPECT_TRUE(ops.insert(op["op"]).second) << op["op"];
    args.push_back(part);
  }
  EXPECT_EQ(ops.size(), 4u);
  auto m = cli(args);
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_THAT(m.out, HasSubstr("3 shards, 4 ops"));
  EXPECT_EQ(sweep_report(temp_path("sweep_merged.json")), sweep_report(temp_path("sweep.json")));
  for (int i = 0; i < kShards; ++i) std::filesystem::remove(shard_path(i, ".json"));
  std::filesystem::remove(temp_path("sweep.json"));
  std::filesystem::remove(temp_path("sweep_merged.json"));
}

TEST_F(Shards, BadShardValuesAreUsageErrors) {
  for (const char* bad : {"3/3", "a/b", "1/0", "-1/3", "1/3x", "1"}) {
    auto r = cli(with(kRun, {"--shard", bad}));
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("--shard")) << bad;
    EXPECT_THAT(r.err, HasSubstr(bad));
    EXPECT_EQ(cli(with(kSweep, {"--shard", bad})).code, 2) << bad;
  }
}

TEST_F(Shards, MergeRefusesOverlappingMissingAndDisagreeingShards) {
  std::string out = temp_path("refused.jsonl"), copy = temp_path("copy.jsonl");
  std::vector<std::string> files = shard_files();
  std::filesystem::copy_file(files[1], copy, std::filesystem::copy_options::overwrite_existing);
  auto overlap = cli({"merge", out, files[0], files[1], copy, files[2]});
  EXPECT_EQ(overlap.code, 1);
  std::string first_of_shard1 = item_ids(records(files[1])).front();
  EXPECT_THAT(overlap.err, HasSubstr("item '" + first_of_shard1 + "' is in both " + files[1] + " and " + copy));

  auto missing = cli({"merge", out, files[0], files[2]});
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("shard 1/3 is missing"));

  auto unsharded = cli({"merge", out, files[0], temp_path("whole.jsonl")});
  EXPECT_EQ(unsharded.code, 1);
  EXPECT_THAT(unsharded.err, HasSubstr(temp_path("whole.jsonl") + ": not a shard"));
  ASSERT_EQ(cli(with(kRun, {"--shard", "1/4", "--out", copy})).code, 0);
  auto other_split = cli({"merge", out, files[0], copy});
  EXPECT_EQ(other_split.code, 1);
  EXPECT_THAT(other_split.err, HasSubstr(copy + ": shard 1/4, but " + files[0] + " is shard 0/3"));

  // A shard of another seed: its meta record names the field that differs.
  ASSERT_EQ(cli(with(kRun, {"--seed", "9", "--shard", "1/3", "--out", copy})).code, 0);
  auto other = cli({"merge", out, files[0], copy, files[2]});
  EXPECT_EQ(other.code, 1);
  EXPECT_THAT(other.err, HasSubstr(copy + ": disagrees with " + files[0] + " at /meta/extra/params/seed: 9, not 0"));

  std::ofstream(copy) << "not a results file\n";
  auto neither = cli({"merge", out, files[0], copy});
  EXPECT_EQ(neither.code, 1);
  EXPECT_THAT(neither.err, HasSubstr(copy + ":1: neither run's results"));
  // A number past double's range is named by its line too, not by the JSON reader alone (found
  // by results_fuzz).
  std::ofstream(copy) << records(files[0]).front().dump() << "\n{\"type\": \"item\", \"x\": 1e999}\n";
  auto overflow = cli({"merge", out, copy});
  EXPECT_EQ(overflow.code, 1);
  EXPECT_THAT(overflow.err, HasSubstr(copy + ":2: neither run's results"));
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove(copy);
}

TEST_F(Shards, MergeHelpSaysWhatItTakes) {
  auto help = cli({"merge", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("OUT"));
  EXPECT_THAT(help.out, HasSubstr("sweep --shard I/N --json"));
  EXPECT_THAT(cli({"run", "--help"}).out, HasSubstr("--shard"));
}

}  // namespace
}  // namespace opsfuzz
