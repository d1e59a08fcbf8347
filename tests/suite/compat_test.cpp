// Suites that the format's original framework accepts load, list the ids it would produce (in
// order, duplicates included) and run, unchanged; what we check more strictly is a warning.
#include <filesystem>
#include <fstream>

#include <ATen/ATen.h>

#include "suite/materialize.h"
#include "run_util.h"
#include "test_util.h"

namespace opsfuzz::suite {
namespace {

using opsfuzz::testing::cli;

std::string write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Validates (warnings allowed), lists exactly `ids` and runs every test OK on CPU.
void expect_accepted(const std::string& name, const std::string& yaml, const std::string& ids) {
  std::string path = write(name, yaml);
  auto validate = cli({"validate-yaml", path});
  EXPECT_EQ(validate.code, 0) << validate.err;
  auto list = cli({"list-tests", path});
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, ids);
  auto run = cli({"run-eager", path});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.find("error "), std::string::npos) << run.out;
}

// The warnings of a suite that must load without errors.
std::vector<Diagnostic> warnings_of(const std::string& yaml) {
  LoadResult r = read_suite_text(yaml, "t.yaml");
  EXPECT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str();
  return r.diagnostics.warnings();
}

bool has_warning(const std::vector<Diagnostic>& ws, const std::string& pos, const std::string& text) {
  for (const auto& w : ws)
    if (w.pos.str() == pos && w.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(Compat, EmptyVarsYieldOneTestWithoutSuffix) {
  expect_accepted("empty_vars.yaml", R"(tests:
  - id: relu_no_vars
    op: {type: template_module, path: torch.nn.ReLU, vars: {}}
    in: [{type: tensor, shape: [2, 3], dtype: float32}]
  - id: pair_no_vars
    op:
      type: template_compare_pair
      vars: {}
      a: {impl: x, type: module, path: torch.nn.ReLU}
      b: {impl: y, type: module, path: torch.nn.ReLU}
    in: [{type: tensor, shape: [2], dtype: float32}]
  - op: {type: template_module, path: torch.nn.Tanh}
    in: [{type: tensor, shape: [2], dtype: float32}]
  - id: no_cases
    op: {type: template_module, path: torch.nn.Linear, vars: {n: [2]}, cases: [], args: [3, {var: n}]}
    in: [{type: tensor, shape: [1, 3], dtype: float32}]
)",
                  "relu_no_vars\npair_no_vars\n  pair_no_vars__a\n  pair_no_vars__b\ntemplate\n"
                  "no_cases__n=2\n");
}

TEST(Compat, CastInput0ToComplexTakesComplexAndPackedInputs) {
  const char* yaml = R"(tests:
  - id: fft_complex
    op: aten::fft_fft
    in: [{type: tensor, shape: [8], dtype: complex64}]
    cast_input0_to_complex: true
  - id: fft_packed
    op: aten::fft_fft
    in: [{type: tensor, shape: [8, 2], dtype: float32}]
    cast_input0_to_complex: true
)";
  expect_accepted("cast.yaml", yaml, "fft_complex\nfft_packed\n");
  EXPECT_TRUE(warnings_of(yaml).empty());
  Suite s = testing::valid(yaml);
  auto complex = run_test(s.tests[0], 0), packed = run_test(s.tests[1], 0);
  ASSERT_EQ(complex.status, Status::Ok) << complex.message;
  ASSERT_EQ(packed.status, Status::Ok) << packed.message;
  EXPECT_EQ(complex.output.toTensor().sizes(), (std::vector<int64_t>{8}));
  EXPECT_EQ(packed.output.toTensor().sizes(), (std::vector<int64_t>{8}));  // [8, 2] rebuilt as [8]
  EXPECT_TRUE(packed.output.toTensor().is_complex());
}

TEST(Compat, CastOfAnUnpackableInputFailsOnlyThatTest) {
  const char* yaml = R"(tests:
  - id: fft_int
    op: aten::fft_fft
    in: [{type: tensor, shape: [8, 3], dtype: float32}]
    cast_input0_to_complex: yes
)";
  EXPECT_TRUE(has_warning(warnings_of(yaml), "t.yaml:5:29", "complex tensor or a real floating"));
  Suite s = testing::valid(yaml);
  auto outcome = run_test(s.tests[0], 0);
  EXPECT_EQ(outcome.status, Status::Error);
  EXPECT_NE(outcome.message.find("shape [8, 3]"), std::string::npos) << outcome.message;
}

TEST(Compat, CompareSidesWithoutType) {
  expect_accepted("sides.yaml", R"(tests:
  - id: cmp
    op:
      type: template_compare_pair
      vars: {n: [2, 3]}
      a: {impl: ref, path: torch.nn.Linear, args: [4, {var: n}]}
      b: {impl: alt, path: torch.nn.Linear, args: [4, {var: n}]}
    in: [{type: tensor, shape: [2, 4], dtype: float32}]
)",
                  "cmp__n=2\n  cmp__n=2__a\n  cmp__n=2__b\ncmp__n=3\n  cmp__n=3__a\n  cmp__n=3__b\n");
}

TEST(Compat, ConstructWithoutArgs) {
  expect_accepted("construct.yaml", R"(tests:
  - id: seq
    op:
      type: module
      path: torch.nn.Sequential
      args: [{type: construct, path: torch.nn.ReLU}, {type: construct, path: torch.nn.Linear, args: [3, 2]}]
    in: [{type: tensor, shape: [1, 3], dtype: float32}]
)",
                  "seq\n");
}

const char* kDuplicates = R"(tests:
  - id: dup
    op:
      type: template_module
      path: torch.nn.Linear
      vars: {bias: [yes, on]}
      args: [4, 2]
      kwargs: {bias: {var: bias}}
    in: [{type: tensor, shape: [3, 4], dtype: float32}]
  - {id: twice, op: aten::relu, in: [{type: tensor, shape: [2], dtype: float32}]}
  - {id: twice, op: aten::neg, in: [{type: tensor, shape: [2], dtype: float32}]}
)";

TEST(Compat, DuplicateIdsAllRunInOrderWithAWarning) {
  expect_accepted("dup.yaml", kDuplicates, "dup__bias=True\ndup__bias=True\ntwice\ntwice\n");
  auto ws = warnings_of(kDuplicates);
  // Each warning stands at the later test and names the earlier one.
  EXPECT_TRUE(
      has_warning(ws, "t.yaml:2:5", "duplicate test id 'dup__bias=True' (also produced by the test at t.yaml:2:5)"));
  EXPECT_TRUE(has_warning(ws, "t.yaml:11:5", "duplicate test id 'twice' (also produced by the test at t.yaml:10:5)"));

  std::string path = write("dup_select.yaml", kDuplicates);
  auto list = cli({"list-tests", path, "--test-ids", "twice"});
  EXPECT_EQ(list.out, "twice\ntwice\n");
  Suite s = testing::valid(kDuplicates);
  auto outcomes = run_eager(s, IdFilter("twice"));
  ASSERT_EQ(outcomes.size(), 2u);
  ASSERT_EQ(outcomes[0].status, Status::Ok);
  ASSERT_EQ(outcomes[1].status, Status::Ok);
  // relu, then neg: the order of the document.
  auto in = materialize_inputs(s.tests[2], 0).args[0].toTensor();
  EXPECT_TRUE(outcomes[0].output.toTensor().equal(in.relu()));
  EXPECT_TRUE(outcomes[1].output.toTensor().equal(in.neg()));
}

TEST(Compat, ExplicitPairTests) {
  const char* yaml = R"(tests:
  - type: pair
    id: relu_vs_clamp
    a: {op: aten::relu, impl: x, in: [{type: tensor, shape: [3], dtype: float32}]}
    b:
      id: clamp_side
      op: aten::clamp
      in: [{type: tensor, shape: [3], dtype: float32}]
      kwargs: {min: {type: const, value: 0.0}}
  - a: {op: aten::neg, in: [{type: tensor, shape: [2], dtype: float32}]}
    b: {op: aten::negative, in: [{type: tensor, shape: [2], dtype: float32}]}
)";
  expect_accepted("pairs.yaml", yaml,
                  "relu_vs_clamp\n  relu_vs_clamp__a\n  clamp_side\npair__1\n  pair__1__a\n  pair__1__b\n");
  Suite s = testing::valid(yaml);
  ASSERT_EQ(s.pairs.size(), 2u);
  EXPECT_EQ(s.tests[0].impl, "x");
  // The sides of a pair draw the same inputs, so relu and clamp(min=0) agree.
  auto a = run_test(s.tests[0], 0), b = run_test(s.tests[1], 0);
  ASSERT_EQ(a.status, Status::Ok) << a.message;
  ASSERT_EQ(b.status, Status::Ok) << b.message;
  EXPECT_TRUE(a.output.toTensor().equal(b.output.toTensor()));
}

TEST(Compat, PairTestSidesMustBeTests) {
  std::string e = testing::errors(R"(tests:
  - {type: pair, id: p, a: 3, b: {op: {type: template_module, path: torch.nn.ReLU}, in: []}}
)");
  EXPECT_NE(e.find("tests[0].a: a pair test needs sides a and b, each a test"), std::string::npos) << e;
  EXPECT_NE(e.find("tests[0].b.op.type: a side of a pair test cannot be a template"), std::string::npos) << e;
}

TEST(Compat, DuplicatePairIdsKeepTheirOwnSides) {
  Suite s = testing::valid(R"(tests:
  - id: p
    op: {type: template_compare_pair, a: {impl: x, path: torch.nn.ReLU}, b: {impl: y, path: torch.nn.Tanh}}
    in: [{type: tensor, shape: [2], dtype: float32}]
  - id: p
    op: {type: template_compare_pair, a: {impl: x, path: torch.nn.Sigmoid}, b: {impl: y, path: torch.nn.ReLU}}
    in: [{type: tensor, shape: [2], dtype: float32}]
)");
  ASSERT_EQ(s.pairs.size(), 2u);
  EXPECT_EQ(s.pair_of(s.tests[2]), &s.pairs[1]);
  EXPECT_EQ(s.pairs[1].a, 2u);
  EXPECT_EQ(s.pairs[1].b, 3u);
}

}  // namespace
}  // namespace opsfuzz::suite

namespace opsfuzz::suite {
namespace {

// The ```yaml blocks of the format's documentation.
std::vector<std::string> documented_examples() {
  std::ifstream in(OPSFUZZ_FORMAT_DOC);
  std::vector<std::string> out;
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      out.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return out;
}

TEST(Compat, EveryExampleOfTheFormatDocumentValidatesAndRuns) {
  auto examples = documented_examples();
  ASSERT_GE(examples.size(), 3u);
  for (const auto& yaml : examples) {
    LoadResult r = read_suite_text(yaml, "docs.yaml");
    EXPECT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str() << yaml;
    // No warning but where an example shows an extension opdiff refuses or ignores.
    for (const Diagnostic& w : r.diagnostics.warnings())
      EXPECT_TRUE(w.message.find(": opdiff refuses it when it loads the suite; ops-fuzz ") != std::string::npos ||
                  w.message.find(": opdiff ignores it; ops-fuzz ") != std::string::npos)
          << w.str() << "\n"
          << yaml;
    EXPECT_FALSE(r.suite.tests.empty()) << yaml;
    for (const auto& o : run_eager(r.suite)) EXPECT_EQ(o.status, Status::Ok) << o.id << ": " << o.message;
  }
}

}  // namespace
}  // namespace opsfuzz::suite
