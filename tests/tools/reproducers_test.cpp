// A hunt's reproducers: each finding's first sample shrunk, its YAML test reproducing the finding's
// key with `run`, and its Python script reproducing the discrepancy on Debian's python3-torch (the
// same libtorch), for real findings of libtorch 1.13's eager kernels.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/tools/cli_run.h"

namespace opsfuzz {
namespace {

using testing::cli;
using ::testing::HasSubstr;

constexpr const char* kPython = "/usr/bin/python3";  // Debian's, which python3-torch installs into

std::vector<nlohmann::json> findings_of(const std::filesystem::path& dir) {
  std::ifstream in(dir / "findings.jsonl");
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// The exit status of a shell command (-1 when it did not exit normally, a signal included).
int status_of(const std::string& command) {
  int raw = std::system(command.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

class Reproducers : public ::testing::Test {
 protected:
  // Eager kernels on extreme values: fmod and remainder by a subnormal or infinite divisor, and
  // floor division, whose vectorized float32 paths give NaN where the exact result is finite.
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("opsfuzz_reproducers_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    run_ = cli({"hunt", "--ops", "fmod.Tensor,remainder.Tensor,floor_divide.default,div.Tensor_mode", "--configs",
                "extremes", "--no-invalid", "--max", "20", "--backends", "eager_cpu_noncontig;eager_cpu_fp64", "--out",
                dir_.string()});
    findings_ = findings_of(dir_);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  static inline std::filesystem::path dir_;
  static inline testing::Run run_;
  static inline std::vector<nlohmann::json> findings_;
};

TEST_F(Reproducers, EveryFindingHasAShrunkYamlTestThatRunReproduces) {
  ASSERT_GE(findings_.size(), 5u) << run_.out << run_.err;
  for (const auto& f : findings_) {
    SCOPED_TRACE(f["id"].get<std::string>());
    EXPECT_TRUE(f["reproduces"].get<bool>());
    EXPECT_LE(f["shrunk"]["elements_after"].get<int64_t>(), f["shrunk"]["elements_before"].get<int64_t>());
    const auto yaml = dir_ / f["reproducers"]["yaml"].get<std::string>();
    ASSERT_TRUE(std::filesystem::exists(yaml));
    // As its header says: `run` on the file with the finding's backend fails on it.
    auto r = cli({"run", yaml.string(), "--backends", f["backend"].get<std::string>(), "--baseline", "eager_cpu"});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("failing"));
  }
  size_t shrunk = std::count_if(findings_.begin(), findings_.end(), [](const auto& f) {
    return f["shrunk"]["elements_after"] < f["shrunk"]["elements_before"];
  });
  EXPECT_GE(shrunk, 1u) << "shrinking made no first sample smaller";
}

TEST_F(Reproducers, PythonScriptsReproduceOnDebiansPythonTorch) {
  if (status_of(std::string(kPython) + " -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << kPython << " cannot import torch: Debian's python3-torch is not installed (tools/bootstrap.sh "
                 << "installs it)";
  size_t checked = 0;
  for (const auto& f : findings_) {
    if (!f["reproducers"]["py"].is_string()) continue;
    const auto script = dir_ / f["reproducers"]["py"].get<std::string>();
    SCOPED_TRACE(script.string());
    EXPECT_EQ(status_of(std::string(kPython) + " " + script.string() + " >/dev/null 2>&1"), 1)
        << "the script must exit 1: the discrepancy holds";
    ++checked;
  }
  EXPECT_GE(checked, 5u);
}

}  // namespace
}  // namespace opsfuzz
