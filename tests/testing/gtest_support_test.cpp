// opsfuzz::gtest as its users see it: registered_demo run with filters and environments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  std::string out;
  int status = -1;
};

// The demo with `args`, after `env` (shell assignments); its stdout and stderr, and exit status.
Outcome demo(const std::string& args, const std::string& env = "") {
  std::string cmd = env + " " + REGISTERED_DEMO + " " + args + " 2>&1";
  Outcome r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) r.out.append(buf.data(), n);
  int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(Targets, TheEnvironmentReplacesTheRegisteredOnes) {
  Outcome plain = demo("--gtest_list_tests");
  EXPECT_THAT(plain.out, HasSubstr("SpecDB/abs_default.\n  valid_0000/eager_cpu_fp64"));
  Outcome env = demo("--gtest_list_tests", "OPSFUZZ_TEST_TARGETS='eager_cpu;torchscript_cpu'");
  EXPECT_THAT(env.out, HasSubstr("  valid_0000/eager_cpu  #"));
  EXPECT_THAT(env.out, HasSubstr("  valid_0000/torchscript_cpu"));
  EXPECT_THAT(env.out, Not(HasSubstr("eager_cpu_fp64")));
}

TEST(Targets, OnlyRestrictsAndExcludeRegistersNothing) {
  Outcome r = demo("--gtest_list_tests --gtest_filter='SpecDB/neg*'");
  EXPECT_THAT(r.out, HasSubstr("  valid_0001/eager_cpu_fp64"));
  EXPECT_THAT(r.out, Not(HasSubstr("noncontig")));
  EXPECT_THAT(r.out, Not(HasSubstr("/eager_cpu ")));
}

TEST(Targets, AnUnknownTargetIsSkippedWithTheReason) {
  Outcome r = demo("--gtest_filter='SpecDB/sqrt*'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("target no_such_backend unavailable: "));
  EXPECT_THAT(r.out, HasSubstr("[  SKIPPED ] SpecDB/sqrt_default.valid_0000/no_such_backend"));
}

TEST(Fixtures, AreBuiltOnceAndReleasedAfterTheirLastTest) {
  // sqrt's fixture: its first test is skipped (unknown target) before it uses it.
  Outcome r = demo("--gtest_filter='SpecDB/sqrt*'");
  EXPECT_THAT(r.out, HasSubstr("[  PASSED  ] 2 tests"));
  EXPECT_THAT(r.out, HasSubstr("fixtures: 1 built, 1 released, 0 held"));
  Outcome uncached = demo("--gtest_filter='SpecDB/sqrt*'", "OPSFUZZ_DISABLE_CACHE=1");
  EXPECT_THAT(uncached.out, HasSubstr("fixtures: 2 built, 0 released, 0 held"));
}

TEST(Registration, ANameRegisteredTwiceIsAnError) {
  EXPECT_THAT(
      demo("--gtest_list_tests").out,
      HasSubstr("second registration: the test SpecDB/abs_default.valid_0000/eager_cpu_fp64 is registered twice"));
}

TEST(Fixtures, InputsThatCannotBeMadeAreASetupFailure) {
  Outcome r = demo("--gtest_filter='Yaml/*'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("SETUP FAILURE of "));
  EXPECT_THAT(r.out, HasSubstr("setup_failure.yaml: add_three_tensors: "));
  EXPECT_THAT(r.out, Not(HasSubstr("mismatch")));
}

TEST(Fixtures, ASampleStreamThatEndsEarlyIsASetupFailureThatSaysWhy) {
  Outcome r = demo("--gtest_filter='SpecDB/prod*'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("SETUP FAILURE of prod.default invalid sample 0"));
  EXPECT_THAT(r.out, HasSubstr("the invalid sample stream ended after 0 samples"));
  EXPECT_THAT(r.out, HasSubstr("no value violates self.dtype not in {float16, bfloat16}"));
}

TEST(UserSpecs, ReplaceOursAndRunThroughGoogleTest) {
  Outcome r = demo("--gtest_filter='UserSpecs.*:SpecDB/abs*'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[  PASSED  ] 3 tests"));
}

}  // namespace
