// The suite commands, called as the ops-fuzz executable calls them.
#include <filesystem>
#include <fstream>

#include "tests/suite/test_util.h"

namespace opsfuzz::suite {
namespace {

using opsfuzz::testing::cli;
using testing::data;

std::string write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const char* kMixed = R"(dims: {N: 3}
tests:
  - {id: relu, op: aten::relu, in: [{type: tensor, shape: [N], kind: float}]}
  - {id: bad_mm, op: aten::mm, in: [{type: tensor, shape: [2, 3], kind: float}, {type: tensor, shape: [2, 3], kind: float}]}
  - {id: on_gpu, op: aten::relu, device: cuda, in: [{type: tensor, shape: [N], kind: float}]}
  - id: cmp
    op:
      type: template_compare_pair
      vars: {w: [2, 4]}
      a: {impl: x, type: module, path: torch.nn.Linear, args: [3, {var: w}]}
      b: {impl: y, type: module, path: torch.nn.Linear, args: [{var: N}, {var: w}]}
    in: [{type: tensor, shape: [1, N], kind: float}]
)";

TEST(Cli, Help) {
  auto top = cli({"--help"});
  EXPECT_EQ(top.code, 0);
  for (const char* c : {"validate-yaml", "list-tests", "run-eager", "generate", "sweep", "list-specs"})
    EXPECT_NE(top.out.find(c), std::string::npos) << c << " in\n" << top.out;
  for (const char* c : {"validate-yaml", "list-tests", "run-eager"}) {
    auto r = cli({c, "--help"});
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find(std::string("ops-fuzz ") + c), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("FILE"), std::string::npos) << r.out;
  }
  EXPECT_EQ(cli({"frobnicate"}).code, 2);
}

// parse_cli (what cli_fuzz drives) parses as run_cli does and runs nothing.
TEST(Cli, ParsingAloneRunsNoCommand) {
  auto parse = [](const std::vector<std::string>& args) {
    std::ostringstream out, err;
    int code = parse_cli(args, out, err);
    return opsfuzz::testing::Run{code, out.str(), err.str()};
  };
  auto generate = parse({"generate", "add.Tensor", "--max", "1", "--format", "jsonl"});
  EXPECT_EQ(generate.code, 0);
  EXPECT_EQ(generate.out + generate.err, "");                    // no sample written
  EXPECT_EQ(parse({"validate-yaml", "/no/such.yaml"}).code, 0);  // the file is the command's to read
  auto bad = parse({"generate", "--max", "x"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, cli({"generate", "--max", "x"}).err);
  EXPECT_EQ(parse({"--help"}).out, cli({"--help"}).out);
}

TEST(Cli, BadUsage) {
  auto missing = cli({"validate-yaml"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("FILE is required"), std::string::npos) << missing.err;
  EXPECT_EQ(cli({"list-tests", "a.yaml", "--frob"}).code, 2);
  EXPECT_EQ(cli({"validate-yaml", "a.yaml", "--test-ids", "x"}).code, 2);  // not an option of it
  EXPECT_EQ(cli({"run-eager", "a.yaml", "--seed", "x1"}).code, 2);
  EXPECT_EQ(cli({"run-eager", "a.yaml", "--seedx", "1"}).code, 2);  // never taken for --seed
}

TEST(Cli, ValidateValid) {
  std::string path = write("mixed.yaml", kMixed);
  auto r = cli({"validate-yaml", path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, path + ": valid, 7 tests (2 pairs)\n");
}

TEST(Cli, ValidateInvalidListsEveryError) {
  std::string path =
      write("invalid.yaml", "tests:\n  - {id: a, op: aten::relu, in: [{type: tensor, shape: [-1], kind: flaot}]}\n");
  auto r = cli({"validate-yaml", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(path + ":2:68: error: tests[0] (a): tests[0].in[0].kind: unknown kind "
                              "'flaot' (did you mean 'float'?); expected float, int or bool"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(path + ":2:57: error: tests[0] (a): tests[0].in[0].shape[0]: negative size -1"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("2 errors in " + path), std::string::npos) << r.err;
}

TEST(Cli, ValidateWarnsAboutUnknownOpsAndModules) {
  std::string path = write("refs.yaml", R"(tests:
  - {id: a, op: aten::relu, in: []}
  - {id: b, op: aten::rleu, in: []}
  - {id: c, op: {type: module, path: torch.nn.Lineer}, in: []}
  - {id: d, op: {type: module, path: "file:absent.pt"}, in: []}
)");
  auto r = cli({"validate-yaml", path});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.err.find(path + ":3:5: warning: b: unknown operator 'aten::rleu' (did you mean 'aten::relu'?)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(path + ":4:17: warning: c: module 'torch.nn.Lineer' is not available here"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("warning: d: module 'file:absent.pt' is not available here"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning: a:"), std::string::npos) << r.err;
}

TEST(Cli, ListTests) {
  std::string path = write("mixed.yaml", kMixed);
  auto r = cli({"list-tests", path});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out,
            "relu\nbad_mm\non_gpu\n"
            "cmp__w=2\n  cmp__w=2__a\n  cmp__w=2__b\n"
            "cmp__w=4\n  cmp__w=4__a\n  cmp__w=4__b\n");
}

TEST(Cli, ListTestsFiltered) {
  std::string path = write("mixed.yaml", kMixed);
  EXPECT_EQ(cli({"list-tests", path, "--test-ids", "relu;cmp__w=4"}).out,
            "relu\ncmp__w=4\n  cmp__w=4__a\n  cmp__w=4__b\n");
  EXPECT_EQ(cli({"list-tests", path, "--test-ids=b*"}).out, "bad_mm\n");
  EXPECT_EQ(cli({"list-tests", path, "--test-ids", "cmp__w=2__b"}).out, "cmp__w=2\n  cmp__w=2__b\n");
  EXPECT_EQ(cli({"list-tests", path, "--test-ids", "nothing"}).out, "");
}

TEST(Cli, RunEager) {
  std::string path = write("mixed.yaml", kMixed);
  auto r = cli({"run-eager", path});
  EXPECT_EQ(r.code, 1) << r.out;  // bad_mm fails
  std::istringstream lines(r.out);
  std::vector<std::string> out;
  for (std::string line; std::getline(lines, line);) out.push_back(line);
  ASSERT_EQ(out.size(), 8u) << r.out;
  EXPECT_EQ(out[0], "ok relu");
  EXPECT_TRUE(out[1].starts_with("error bad_mm: RuntimeError: mat1 and mat2 shapes cannot be multiplied")) << out[1];
  EXPECT_EQ(out[2], "skipped on_gpu: device cuda is not available (no CUDA)");
  EXPECT_EQ(out[3], "ok cmp__w=2__a");
  EXPECT_EQ(out[6], "ok cmp__w=4__b");
  EXPECT_EQ(out[7], "5 ok, 1 errors, 1 skipped");
}

TEST(Cli, RunEagerSelectedAndSeeded) {
  std::string path = write("mixed.yaml", kMixed);
  auto r = cli({"run-eager", path, "--test-ids=relu;cmp*", "--seed=9"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("5 ok, 0 errors, 0 skipped"), std::string::npos) << r.out;
}

TEST(Cli, DimSymbolsInConstructorArgumentsAreLiteralStrings) {
  std::string path = write("literal.yaml",
                           "dims: {N: 3}\ntests:\n  - {id: l, op: {type: module, path: "
                           "torch.nn.Linear, args: [N, 2]}, in: []}\n");
  auto r = cli({"run-eager", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("error l: TypeError: torch.nn.Linear: argument 'in_features' expects int, got String "
                       "'N' (dim symbols are not resolved in constructor arguments"),
            std::string::npos)
      << r.out;
}

TEST(Cli, InvalidSuiteDoesNotRun) {
  std::string path = write("invalid_run.yaml", "tests:\n  - {id: a, op: aten::relu, in: [{ref: nope}]}\n");
  auto r = cli({"run-eager", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("unknown preset 'nope'"), std::string::npos);
}

TEST(Cli, WarningsDoNotFailValidation) {
  std::string path = write("warn.yaml", R"(dims: {N: 3}
tests:
  - id: t
    op: {type: template_module, path: torch.nn.ReLU, vars: {N: [1, 2]}}
    in: [{type: tensor, shape: [N], kind: float}]
)");
  auto r = cli({"validate-yaml", path});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.err.find(path + ":4:65: warning: tests[0] (t): tests[0].op.vars.N: var 'N' has the name of a dim"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("has the name of a dim"), std::string::npos) << r.err;
  EXPECT_EQ(cli({"list-tests", path}).out, "t__N=3\n");
}

}  // namespace
}  // namespace opsfuzz::suite
