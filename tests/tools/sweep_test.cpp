// The SpecDB commands of ops-fuzz, run in-process: selection, reproducing one sample, the sweep
// over job processes and its JSON report, known crashes.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "specs/db/db.h"
#include "tests/tools/cli_run.h"
#include "tools/cli.h"
#include "tools/commands.h"

namespace opsfuzz {
namespace {

using testing::cli;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class Tools : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }  // samples run in forked workers
};

TEST_F(Tools, OptionsParseOneWay) {
  EXPECT_EQ(cli({"generate", "add.Tensor", "--seed=3", "--max=2", "--format=jsonl"}).code, 0);
  auto bad = cli({"generate", "add.Tensor", "--seedx", "3"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--seedx"), std::string::npos) << bad.err;
  auto config = cli({"sweep", "add.Tensor", "--config", "transposd"});
  EXPECT_EQ(config.code, 2);
  EXPECT_NE(config.err.find("transposd"), std::string::npos) << config.err;
  EXPECT_EQ(cli({"sweep", "add.Tensor", "--jobs", "0"}).code, 2);
  auto help = cli({"sweep", "--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* o : {"--ops", "--jobs", "--json", "--index", "--config", "--invalid"})
    EXPECT_NE(help.out.find(o), std::string::npos) << o;
}

TEST_F(Tools, OpsByNameAndGlob) {
  auto specs = select_specs(OpSelection{{"add.Tensor"}, {"add.*", "index_*"}});
  ASSERT_GE(specs.size(), 2u);
  EXPECT_EQ(specs[0]->op(), "add.Tensor");  // named first, then by glob, each once
  for (size_t i = 1; i < specs.size(); ++i) {
    EXPECT_NE(specs[i]->op(), "add.Tensor");
    EXPECT_TRUE(specs[i]->op().starts_with("add.") || specs[i]->op().starts_with("index_")) << specs[i]->op();
  }
  EXPECT_THROW(select_specs(OpSelection{{}, {"nothing_like_this*"}}), UsageError);
  auto unknown = cli({"sweep", "ad.Tensor"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("did you mean"), std::string::npos) << unknown.err;
}

TEST_F(Tools, IndexRegeneratesOneSample) {
  auto all = lines(
      cli({"generate", "index_select.default", "--invalid", "--seed", "5", "--max", "12", "--format", "jsonl"}).out);
  ASSERT_EQ(all.size(), 12u);
  auto one = lines(
      cli({"generate", "index_select.default", "--invalid", "--seed", "5", "--index", "7", "--format", "jsonl"}).out);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], all[7]);
}

// The summary says where the dead ends of sampled joint constraints happened: its causes, each
// with its count, add up to the dead-ends column; without dead ends, no such section.
TEST_F(Tools, SummaryCountsDeadEndsByCause) {
  auto sampled = lines(cli({"generate", "glu.default", "--config", "sampling", "--max", "100"}).out);
  ASSERT_GE(sampled.size(), 2u);
  std::istringstream row(sampled[1]);
  std::vector<std::string> cells{std::istream_iterator<std::string>(row), {}};
  ASSERT_EQ(cells.size(), 12u) << sampled[1];
  uint64_t dead_ends = std::stoull(cells[8]);
  ASSERT_GT(dead_ends, 0u) << "glu's even size along dim is met by chance when sampled";
  auto heading = std::find(sampled.begin(), sampled.end(), "dead-ends by cause:");
  ASSERT_NE(heading, sampled.end());
  ASSERT_EQ(*std::next(heading), "  glu.default (" + std::to_string(dead_ends) + ")");
  uint64_t counted = 0;
  for (auto line = std::next(heading, 2); line != sampled.end(); ++line) {
    EXPECT_NE(line->find(": no value satisfies"), std::string::npos) << *line;
    counted += std::stoull(*line);
  }
  EXPECT_EQ(counted, dead_ends);
  auto solved = cli({"generate", "add.Tensor", "--max", "100"}).out;
  EXPECT_EQ(solved.find("dead-ends by cause"), std::string::npos) << solved;
}

TEST_F(Tools, SweepOverJobsEqualsOneProcess) {
  std::string one = ::testing::TempDir() + "/sweep1.json", two = ::testing::TempDir() + "/sweep2.json";
  std::vector<std::string> args = {"sweep",  "--ops", "add.*,mul.*,where.*,index_select.*", "--invalid", "--max", "40",
                                   "--seed", "2"};
  auto a = args, b = args;
  a.insert(a.end(), {"--json", one});
  b.insert(b.end(), {"--json", two, "--jobs", "3"});
  auto ra = cli(a), rb = cli(b);
  EXPECT_EQ(ra.code, rb.code) << ra.err << rb.err;
  EXPECT_EQ(ra.out, rb.out);  // rows in op order, whichever job finished first
  auto report = [](const std::string& path) {
    nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
    for (auto& op : j["ops"]) op.erase("seconds");
    return j;
  };
  auto ja = report(one), jb = report(two);
  EXPECT_EQ(ja, jb);
  ASSERT_GE(ja["ops"].size(), 4u);
  size_t swept = 0;
  for (const auto& op : ja["ops"]) {
    if (op["samples"] == 0) continue;  // an op without a rule to break has no invalid sample
    ++swept;
    EXPECT_EQ(op["samples"], 40) << op.dump();
    EXPECT_EQ(op["bind_errors"], 0) << op.dump();
    EXPECT_EQ(
        op["accepted"].get<int>() + op["rejected"].get<int>() + op["crashed"].get<int>() + op["timed_out"].get<int>(),
        40);
  }
  EXPECT_GE(swept, 3u);
}

TEST_F(Tools, EveryUnexpectedResultCarriesACommandThatReproducesIt) {
  SweepOptions o;
  o.invalid = true, o.seed = 0, o.max = 300, o.config = "contract";
  OpSweep r = sweep_op(*find_spec("index_select.default"), o);
  for (const auto& e : r.events) {
    ASSERT_NE(e.command.find("--index " + std::to_string(e.index)), std::string::npos) << e.command;
    EXPECT_NE(e.command.find("--config contract"), std::string::npos) << e.command;
  }
  // The zero-dim index_select samples corrupt the heap (a known crash): whether and where a
  // worker dies of it varies from run to run, but each crash is known, and the sweep passes.
  SweepOptions valid;
  valid.seed = 0, valid.max = 300, valid.config = "contract";
  OpSweep crashes = sweep_op(*find_spec("index_select.default"), valid);
  for (const auto& e : crashes.events)
    EXPECT_NE(e.kind, SweepEvent::NewCrash) << e.where << ": " << e.message << "\n" << e.command;
  EXPECT_TRUE(crashes.passed());
  EXPECT_GT(crashes.deviation, 0u);
}

}  // namespace
}  // namespace opsfuzz
