// ops-fuzz hunt: its output folder, findings as they come, the table and exit code, the budget.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "hunt/apfd.h"
#include "runner/results.h"
#include "tests/tools/cli_run.h"
#include "tools/apfd_command.h"
#include "tools/commands.h"
#include "tools/hunt_command.h"

namespace opsfuzz {
namespace {

using testing::cli;
using ::testing::HasSubstr;

std::vector<nlohmann::json> records(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// A hand-made hunt folder: n items run in `order` (its meta record says which), and its findings
// as (id, first item).
void write_hunt(const std::filesystem::path& dir, const std::string& order, uint64_t seed, int items,
                const std::vector<std::pair<std::string, int>>& findings) {
  std::filesystem::create_directories(dir);
  std::ofstream results(dir / "results.jsonl");
  results << nlohmann::json{{"type", "meta"},
                            {"meta", {{"extra", {{"hunt", {{"order", order}, {"order_seed", seed}}}}}}}}
          << "\n";
  for (int k = 0; k < items; ++k) results << nlohmann::json{{"type", "item"}, {"id", std::to_string(k)}} << "\n";
  std::ofstream out(dir / "findings.jsonl");
  for (const auto& [id, first] : findings)
    out << nlohmann::json{{"id", id},           {"op", id},   {"backend", "b"},
                          {"kind", "mismatch"}, {"key", "k"}, {"first", first}}
        << "\n";
}

// Three hunts of one selection compared over the first 8 items all ran (the fewest): f1, f2, f3
// reached there by some; one not reached counts at item 9. Worked by hand:
//   diversity  f1 1, f2 5, f3 9: APFD 1 - 15/24 + 1/16 = 0.4375
//   random 1   f1 6, f2 9, f3 3: 1 - 18/24 + 1/16 = 0.3125
//   random 2   f1 2, f2 9 (its item 10 is past 8), f3 9: 1 - 20/24 + 1/16 = 0.2292; mean 0.2708
TEST(Apfd, ComparesOrdersOverTheItemsAllRan) {
  auto base = std::filesystem::temp_directory_path() / ("opsfuzz_apfd_" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  write_hunt(base / "d", "diversity", 0, 10, {{"f1", 0}, {"f2", 4}});
  write_hunt(base / "r1", "random", 1, 8, {{"f3", 2}, {"f1", 5}});
  write_hunt(base / "r2", "random", 2, 12, {{"f1", 1}, {"f2", 9}});
  auto r = cli({"apfd", (base / "d").string(), (base / "r1").string(), (base / "r2").string(), "--findings"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("over the first 8 items every hunt ran, the 3 findings any of them reached there "
                               "(one not reached counts at item 9):\n"));
  EXPECT_THAT(r.out, HasSubstr("APFD 0.4375  reached 2  diversity: " + (base / "d").string() + "\n"));
  EXPECT_THAT(r.out, HasSubstr("APFD 0.3125  reached 2  random (seed 1): "));
  EXPECT_THAT(r.out, HasSubstr("APFD 0.2292  reached 1  random (seed 2): "));
  EXPECT_THAT(r.out, HasSubstr("APFD 0.2708  mean of 2 random orders\n"));
  EXPECT_THAT(r.out, HasSubstr("finding\tdiversity\trandom (seed 1)\trandom (seed 2)\tmean random\n"
                               "f1\t1\t6\t2\t4\nf2\t5\t-\t-\t9\nf3\t-\t3\t-\t6\n"));
  std::filesystem::remove_all(base);
}

// A hunt's results replayed in the order it ran give its own APFD; replayed in another order (the
// hunt's ids reversed, in a file as prioritize prints them), the findings that order would meet.
TEST(Apfd, ReplaysAHuntInAnotherOrder) {
  auto dir = std::filesystem::temp_directory_path() / ("opsfuzz_apfd_replay_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto hunt = cli({"hunt", "--ops", "masked_fill.Tensor,atan2.default", "--configs", "default", "--max", "20",
                   "--backends", "eager_cpu_grad", "--order", "given", "--out", dir.string()});
  ASSERT_EQ(hunt.code, 1) << hunt.err;
  std::vector<std::string> ids;
  runner::for_each_item_record((dir / "results.jsonl").string(),
                               [&](const nlohmann::json& j) { ids.push_back(j["id"].get<std::string>()); });
  ASSERT_EQ(ids.size(), 80u);  // 2 ops, valid and invalid samples
  const auto given = dir / "given.txt", reversed = dir / "reversed.txt";
  {
    std::ofstream g(given), r(reversed);
    g << "rank  score   item\n";
    for (size_t k = 0; k < ids.size(); ++k) g << k + 1 << "  -  " << ids[k] << "\n";
    for (size_t k = ids.size(); k-- > 0;) r << ids[k] << "\n";
  }
  auto same = cli({"apfd", dir.string(), "--reorder", given.string()});
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.out, cli({"apfd", dir.string()}).out);  // its own order: its own APFD

  const auto findings = records(dir / "findings.jsonl");
  auto back = cli({"apfd", dir.string(), "--reorder", reversed.string(), "--findings"});
  EXPECT_THAT(back.out, HasSubstr(std::to_string(findings.size()) + " findings over 80 items"));
  for (const auto& f : findings) {  // its last sample in the hunt is its first backwards
    size_t last = 0;
    for (size_t k = 0; k < ids.size(); ++k)
      for (const auto& sample : f["samples"])
        if (sample == ids[k]) last = k;
    if (f["count"].get<size_t>() <= f["samples"].size())
      EXPECT_THAT(back.out, HasSubstr("\n" + std::to_string(ids.size() - last) + "  ")) << f["id"];
  }
  auto budget = cli({"apfd", dir.string(), "--reorder", reversed.string(), "--items", "10"});
  EXPECT_THAT(budget.out, HasSubstr(" over 10 items"));
  auto compared = cli({"apfd", dir.string(), "--reorder", given.string(), reversed.string()});
  EXPECT_THAT(compared.out, HasSubstr("over the first 80 items every hunt ran"));
  std::filesystem::remove_all(dir);
}

// Autograd's forward of masked_fill fails an internal assert when its inputs require grad, where
// the plain call runs: one finding for all of its samples.
TEST(Hunt, GroupsDifferencesIntoFindingsWrittenToItsFolder) {
  auto dir = std::filesystem::temp_directory_path() / ("opsfuzz_hunt_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto r = cli({"hunt", "--ops", "masked_fill.Tensor", "--configs", "default", "--max", "30", "--backends",
                "eager_cpu_grad", "--out", dir.string()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("finding masked_fill_Tensor-eager_cpu_grad-exception-1: RuntimeError: "));
  EXPECT_THAT(r.out, HasSubstr("60 items in "));

  auto results = records(dir / "results.jsonl");
  ASSERT_EQ(results.size(), 61u);  // the meta record, then 30 valid and 30 invalid samples
  EXPECT_EQ(results[0]["type"], "meta");
  auto findings = records(dir / "findings.jsonl");
  ASSERT_GE(findings.size(), 1u);
  const auto& f = findings[0];
  EXPECT_EQ(f["id"], "masked_fill_Tensor-eager_cpu_grad-exception-1");
  EXPECT_EQ(f["kind"], "exception");
  EXPECT_EQ(f["baseline"], "eager_cpu");
  EXPECT_GT(f["count"].get<int>(), 1);
  EXPECT_THAT(f["message"].get<std::string>(), HasSubstr("INTERNAL ASSERT FAILED"));
  EXPECT_EQ(f["configs"], nlohmann::json({"default"}));
  EXPECT_TRUE(f["known"].is_null());
  EXPECT_THAT(r.out, HasSubstr("masked_fill_Tensor-eager_cpu_grad-exception-1"));

  // How early the order reached its findings, as the hunt ends and as `apfd` reads its folder.
  std::vector<uint64_t> firsts;
  for (const auto& finding : findings) firsts.push_back(finding["first"].get<uint64_t>());
  const std::string line = hunt::apfd_line(firsts, 60);
  EXPECT_THAT(line, HasSubstr("APFD 0.")) << line;
  EXPECT_THAT(r.out, HasSubstr(line));
  auto apfd = cli({"apfd", dir.string(), "--findings"});
  EXPECT_EQ(apfd.code, 0) << apfd.err;
  EXPECT_THAT(apfd.out, HasSubstr(line + "\n"));
  EXPECT_THAT(apfd.out, HasSubstr(std::to_string(firsts[0] + 1) + "  masked_fill_Tensor-eager_cpu_grad-exception-1\n"));
  std::filesystem::remove_all(dir);
  auto missing = cli({"apfd", "/nonexistent_opsfuzz_dir"});
  EXPECT_NE(missing.code, 0);
  EXPECT_THAT(missing.err, HasSubstr("nonexistent_opsfuzz_dir"));
}

std::vector<std::string> hunt_args(const std::filesystem::path& dir) {
  return {"hunt", "--ops",      "fmod.Tensor,remainder.Tensor",       "--configs", "default,extremes", "--max",
          "60",   "--backends", "eager_cpu_noncontig;eager_cpu_fp64", "--out",     dir.string()};
}

// A findings file's lines without the time shrinking took, which two runs do not share.
std::vector<nlohmann::json> findings(const std::filesystem::path& dir) {
  std::vector<nlohmann::json> out = records(dir / "findings.jsonl");
  for (auto& f : out) f.erase("shrink_seconds");
  return out;
}

// The item records of a results file (a cut last line is skipped), counted with their repeats.
size_t item_lines(const std::filesystem::path& results) {
  size_t n = 0;
  runner::for_each_item_record(results.string(), [&](const nlohmann::json&) { ++n; });
  return n;
}

// A hunt killed midway and resumed finds what an uninterrupted one finds: the same findings, with
// the same counts, first items and samples.
TEST(Hunt, AKilledHuntResumedFindsWhatAnUninterruptedOneFinds) {
  auto base = std::filesystem::temp_directory_path() / ("opsfuzz_hunt_resume_" + std::to_string(::getpid()));
  auto whole = base / "whole", part = base / "part";
  std::filesystem::remove_all(base);
  cli(hunt_args(whole));
  const auto expected = findings(whole);
  ASSERT_GE(expected.size(), 2u);

  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cli(hunt_args(part));
    ::_exit(0);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (item_lines(part / "results.jsonl") < 40 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  size_t before = item_lines(part / "results.jsonl");
  ASSERT_GE(before, 40u);
  ASSERT_LT(before, 360u) << "the hunt finished before it could be killed";

  auto args = hunt_args(part);
  args.push_back("--resume");
  auto resumed = cli(args);
  EXPECT_THAT(resumed.err, HasSubstr("resume: "));
  EXPECT_EQ(item_lines(part / "results.jsonl"), 360u);  // 2 ops x (2 configs + invalid) x 60, none twice
  EXPECT_EQ(findings(part), expected);
  std::filesystem::remove_all(base);
}

// Two shards merged (ops-fuzz merge, then hunt --resume in the merged folder, which replays the
// merged results and runs nothing) find what one unsharded hunt finds.
TEST(Hunt, ShardsMergedFindWhatOneHuntFinds) {
  auto base = std::filesystem::temp_directory_path() / ("opsfuzz_hunt_shards_" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  cli(hunt_args(base / "whole"));
  for (const char* shard : {"0/2", "1/2"}) {
    auto args = hunt_args(base / ("shard" + std::string(1, shard[0])));
    args.insert(args.end(), {"--shard", shard});
    auto r = cli(args);
    EXPECT_THAT(r.out, HasSubstr("shard " + std::string(shard) + ": 180 items in ")) << r.out << r.err;
  }
  std::filesystem::create_directories(base / "merged");
  auto merged = cli({"merge", (base / "merged" / "results.jsonl").string(),
                     (base / "shard0" / "results.jsonl").string(), (base / "shard1" / "results.jsonl").string()});
  ASSERT_EQ(merged.code, 0) << merged.err;
  auto args = hunt_args(base / "merged");
  args.push_back("--resume");
  auto replayed = cli(args);
  EXPECT_THAT(replayed.err, HasSubstr("resume: 360 items already in "));
  EXPECT_THAT(replayed.out, HasSubstr("360 items in "));
  const auto expected = findings(base / "whole");
  ASSERT_GE(expected.size(), 2u);
  EXPECT_EQ(findings(base / "merged"), expected);
  std::filesystem::remove_all(base);
}

// The budget is looked at between batches of items (1024 at least, whole units of the given order;
// making and ordering the pool of the other orders counts too): a spent one stops the hunt with
// everything found so far written.
TEST(Hunt, ASpentBudgetStopsItWithWhatItFound) {
  auto dir = std::filesystem::temp_directory_path() / ("opsfuzz_hunt_budget_" + std::to_string(::getpid()));
  auto r =
      cli({"hunt", "--ops", "add.Tensor,sub.Tensor,mul.Tensor", "--configs", "default", "--no-invalid", "--max", "600",
           "--backends", "eager_cpu_fp64", "--order", "given", "--budget", "0.001s", "--out", dir.string()});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("(the budget is spent)"));
  EXPECT_THAT(r.out, HasSubstr("1200 items in "));  // the first batch (two ops) ran; the third did not
  EXPECT_TRUE(std::filesystem::exists(dir / "findings.jsonl"));
  std::filesystem::remove_all(dir);

  EXPECT_EQ(parse_budget("90s"), 90);
  EXPECT_EQ(parse_budget("10m"), 600);
  EXPECT_EQ(parse_budget("1.5h"), 5400);
  EXPECT_EQ(parse_budget("30"), 30);
  EXPECT_THROW(parse_budget("ten minutes"), UsageError);
  EXPECT_THROW(parse_budget("10d"), UsageError);
  EXPECT_THAT(cli({"hunt", "--out", dir.string(), "--configs", "default,nosuchword"}).err, HasSubstr("nosuchword"));
}

}  // namespace
}  // namespace opsfuzz
