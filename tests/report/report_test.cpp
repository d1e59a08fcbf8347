// ops-fuzz report: a hunt's folder read back as the hunt met it, and its pages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "report/report.h"
#include "runner/results.h"
#include "tests/tools/cli_run.h"

namespace opsfuzz {
namespace {

namespace fs = std::filesystem;
using testing::cli;
using ::testing::HasSubstr;

std::vector<nlohmann::json> lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// One small hunt shared by the tests: two ops whose grad and non-contiguous runs differ from the
// baseline's, so that it has findings, reproducers and set-aside differences.
class Report : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("opsfuzz_report_" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    auto r = cli({"hunt", "--ops", "masked_fill.Tensor,fmod.Tensor", "--configs", "default,extremes", "--max", "12",
                  "--backends", "eager_cpu_grad;eager_cpu_noncontig", "--out", dir_->string()});
    ASSERT_EQ(r.code, 1) << r.out << r.err;  // it found something
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static fs::path* dir_;
};
fs::path* Report::dir_ = nullptr;

TEST_F(Report, ReadsAHuntsFolderAsTheHuntMetIt) {
  const report::Report r = report::read_report(dir_->string());
  const auto findings = lines(*dir_ / "findings.jsonl");
  ASSERT_FALSE(findings.empty());
  ASSERT_EQ(r.findings.size(), findings.size());
  for (size_t k = 0; k < findings.size(); ++k) {
    const report::ReportFinding& f = r.findings[k];
    EXPECT_EQ(f.finding.id, findings[k]["id"]);
    EXPECT_EQ(f.finding.count, findings[k]["count"].get<uint64_t>());
    EXPECT_EQ(f.finding.first, findings[k]["first"].get<uint64_t>());
    if (findings[k]["reproducers"]["yaml"].is_string()) {
      EXPECT_THAT(f.yaml, HasSubstr("tests:")) << f.finding.id;
      EXPECT_EQ(f.reproduction.yaml_reproduces, findings[k]["reproduces"].get<bool>());
    }
  }
  uint64_t items = 0;
  std::map<std::string, uint64_t> per_op;
  runner::for_each_item_record((*dir_ / "results.jsonl").string(), [&](const nlohmann::json& j) {
    ++items, ++per_op[j["origin"]["spec"].get<std::string>()];
  });
  EXPECT_EQ(r.items, items);
  EXPECT_EQ(r.backends, (std::vector<std::string>{"eager_cpu", "eager_cpu_grad", "eager_cpu_noncontig"}));
  ASSERT_EQ(r.matrix.size(), per_op.size());
  for (const auto& [op, cells] : r.matrix) {
    ASSERT_EQ(cells.size(), r.backends.size()) << op;
    for (const auto& [backend, counts] : cells) EXPECT_EQ(counts.total(), per_op[op]) << op << " " << backend;
  }
  // Each finding's occurrences are departures of its backend in the matrix.
  for (const report::ReportFinding& f : r.findings) {
    uint64_t departed = 0;
    for (const auto& [op, cells] : r.matrix) {
      const report::Counts& c = cells.at(f.finding.backend);
      departed += c[report::Outcome::Mismatch] + c[report::Outcome::Exception] + c[report::Outcome::Crash];
    }
    EXPECT_GE(departed, f.finding.count) << f.finding.id;
  }
  ASSERT_EQ(r.curves.size(), 1u);
  EXPECT_EQ(r.curves[0].firsts.size(), findings.size());
  EXPECT_TRUE(std::is_sorted(r.curves[0].firsts.begin(), r.curves[0].firsts.end()));
  EXPECT_THAT(r.curves[0].label, HasSubstr("diversity"));
  EXPECT_TRUE(r.latency_ratios.empty());  // a hunt times nothing
}

TEST_F(Report, PagesHaveARowPerFindingAndPerOpAndFetchNothing) {
  const report::Report r = report::read_report(dir_->string(), {dir_->string()});
  ASSERT_EQ(r.curves.size(), 2u);  // compared with itself: two curves
  const std::string page = report::html(r);
  EXPECT_EQ(occurrences(page, "<tr class=\"finding"), r.findings.size());
  EXPECT_EQ(occurrences(page, "<tr class=\"op-row\">"), r.matrix.size());
  EXPECT_EQ(occurrences(page, "<polyline"), 2u);  // the two curves; no latency without timings
  EXPECT_THAT(page, HasSubstr("ops-fuzz run --mode 2"));
  EXPECT_EQ(occurrences(page, "<script"), 0u);
  EXPECT_EQ(occurrences(page, "http"), occurrences(page, "xmlns=\"http://www.w3.org/2000/svg\""));
  const std::string md = report::markdown(r);
  EXPECT_EQ(occurrences(md, "\n| " + r.findings.front().finding.id + " |"), 1u);
  EXPECT_EQ(occurrences(md, "\n| "), r.findings.size() + 1);  // the header and one row each
  EXPECT_THAT(md, HasSubstr("- findings: " + std::to_string(r.findings.size())));
}

TEST_F(Report, TheCommandWritesBothPagesAndSaysWhatItNeeds) {
  const fs::path html = *dir_ / "report.html", md = *dir_ / "report.md";
  auto r = cli({"report", dir_->string(), "--html", html.string(), "--md", md.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("written to " + html.string() + " and " + md.string()));
  EXPECT_GT(fs::file_size(html), 1000u);
  EXPECT_GT(fs::file_size(md), 100u);
  auto none = cli({"report", dir_->string()});
  EXPECT_EQ(none.code, 2);
  EXPECT_THAT(none.err, HasSubstr("--html FILE, --md FILE"));
  auto missing = cli({"report", "/nonexistent_opsfuzz_hunt", "--md", md.string()});
  EXPECT_NE(missing.code, 0);
  EXPECT_THAT(missing.err, HasSubstr("nonexistent_opsfuzz_hunt"));
}

// A run's results file with --mode 2 timings: each backend's time over the baseline's, per item.
TEST(ReportLatency, ComesFromModeTwoTimings) {
  const fs::path results = fs::temp_directory_path() / ("opsfuzz_report_timed_" + std::to_string(::getpid()));
  auto run = cli({"run", "--ops", "add.Tensor", "--max", "6", "--mode", "2", "--repeats", "3", "--backends",
                  "eager_cpu_noncontig", "--baseline", "eager_cpu", "--out", results.string()});
  ASSERT_EQ(run.code, 0) << run.err;
  const report::Report r = report::read_report(results.string());
  fs::remove(results);
  EXPECT_EQ(r.items, 6u);
  ASSERT_EQ(r.latency_ratios.count("eager_cpu_noncontig"), 1u);
  const std::vector<double>& ratios = r.latency_ratios.at("eager_cpu_noncontig");
  EXPECT_EQ(ratios.size(), 6u);
  EXPECT_TRUE(std::is_sorted(ratios.begin(), ratios.end()));
  for (double x : ratios) EXPECT_GT(x, 0);
  EXPECT_EQ(occurrences(report::html(r), "<polyline"), 2u);  // findings over time, and one CDF
}

}  // namespace
}  // namespace opsfuzz
