// One minimal invalid suite per validation rule: the message and where it points.
#include <fstream>

#include <ATen/ATen.h>

#include "suite/materialize.h"
#include "run_util.h"
#include "test_util.h"

namespace opsfuzz::suite {
namespace {

// "t.yaml:LINE:COLUMN" of the nth occurrence of token in text.
std::string where(const std::string& text, const std::string& token, int nth = 1) {
  size_t at = std::string::npos;
  for (int k = 0; k < nth; ++k) at = text.find(token, at == std::string::npos ? 0 : at + 1);
  EXPECT_NE(at, std::string::npos) << token;
  int line = 1, column = 1;
  for (size_t k = 0; k < at; ++k) {
    if (text[k] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "t.yaml:" + std::to_string(line) + ":" + std::to_string(column);
}

// Expects a diagnostic of `severity` at `token` with the given path whose message contains
// `message`.
void expect_diagnostic(Diagnostic::Severity severity, const std::string& yaml, const std::string& token,
                       const std::string& path, const std::string& message, int nth = 1) {
  LoadResult r = read_suite_text(yaml, "t.yaml");
  std::string pos = where(yaml, token, nth);
  for (const auto& d : r.diagnostics.all())
    if (d.severity == severity && d.pos.str() == pos && d.path == path && d.message.find(message) != std::string::npos)
      return;
  ADD_FAILURE() << "no " << (severity == Diagnostic::Severity::Error ? "error" : "warning") << " at " << pos
                << " path '" << path << "' with '" << message << "'; got:\n"
                << r.diagnostics.str();
}

void expect_error(const std::string& yaml, const std::string& token, const std::string& path,
                  const std::string& message, int nth = 1) {
  expect_diagnostic(Diagnostic::Severity::Error, yaml, token, path, message, nth);
}

// A warning, and no error.
void expect_warning(const std::string& yaml, const std::string& token, const std::string& path,
                    const std::string& message) {
  EXPECT_FALSE(read_suite_text(yaml, "t.yaml").diagnostics.has_errors());
  expect_diagnostic(Diagnostic::Severity::Warning, yaml, token, path, message);
}

// A problem the original framework meets only when the test runs: a warning at load time
// (at `token`), then that test's error when it runs.
void expect_deferred(const std::string& yaml, const std::string& token, const std::string& path,
                     const std::string& message) {
  expect_warning(yaml, token, path, message + ": the test fails when it runs");
  Suite s = testing::valid(yaml);
  ASSERT_EQ(s.tests.size(), 1u);
  Ran o = run_test(s.tests[0], 0);
  EXPECT_EQ(o.status, Status::Error);
  EXPECT_NE(o.message.find(path + ": " + message), std::string::npos) << o.message;
}

// A suite whose single test has the given input node.
std::string with_input(const std::string& node, const std::string& head = "") {
  return head + "tests:\n  - id: t\n    op: aten::relu\n    in:\n      - " + node + "\n";
}

TEST(Validation, UnknownTopLevelKey) {
  std::string y = "test: []\n";
  expect_error(y, "test", "", "unknown top-level key 'test' (did you mean 'tests'?)");
  expect_error(y, "test", "", "missing required key 'tests'");
}

TEST(Validation, UnknownTestKey) {
  std::string y = "tests:\n  - {id: t, op: aten::relu, in: [], kwrags: {}}\n";
  expect_error(y, "kwrags", "tests[0]", "unknown key 'kwrags' (did you mean 'kwargs'?)");
}

// A test without an id is named by its path, once: "tests[0]: unknown key", not "tests[0]: tests[0]: ...".
TEST(Validation, ATestWithoutAnIdIsNamedOnce) {
  LoadResult r = read_suite_text("tests:\n  - {op: aten::relu, in: [], name: x}\n", "t.yaml");
  EXPECT_NE(r.diagnostics.str().find("t.yaml:2:30: error: tests[0]: unknown key 'name'\n"), std::string::npos)
      << r.diagnostics.str();
}

TEST(Validation, TestNeedsOpAndIn) {
  std::string y = "tests:\n  - {id: t}\n";
  expect_error(y, "{id", "tests[0]", "missing required key 'op'");
  expect_error(y, "{id", "tests[0]", "missing required key 'in'");
}

TEST(Validation, UnknownNodeKey) {
  std::string y = with_input("{type: tensor, shape: [2], dtype: float32, iinit: normal}");
  expect_error(y, "iinit", "tests[0].in[0]", "unknown key 'iinit' (did you mean 'init'?)");
}

TEST(Validation, UnknownNodeType) {
  std::string y = with_input("{type: tenser, shape: [2]}");
  expect_error(y, "tenser", "tests[0].in[0].type", "unknown node type 'tenser' (did you mean 'tensor'?)");
}

TEST(Validation, NodeWithoutType) {
  std::string y = with_input("{shape: [2]}");
  expect_error(y, "{shape", "tests[0].in[0]", "node has no 'type'");
}

TEST(Validation, KindOrDtypeRequired) {
  expect_error(with_input("{type: tensor, shape: [2]}"), "{type", "tests[0].in[0]", "missing 'kind' or 'dtype'");
}

TEST(Validation, UnknownDtypeListsTheDtypes) {
  std::string y = with_input("{type: tensor, shape: [2], dtype: flaot32}");
  expect_error(y, "flaot32", "tests[0].in[0].dtype",
               "unknown dtype 'flaot32' (did you mean 'float32'?); expected one of: float16, "
               "bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool, complex64, "
               "complex128");
}

TEST(Validation, UnknownKind) {
  expect_error(with_input("{type: tensor, shape: [2], kind: flot}"), "flot", "tests[0].in[0].kind",
               "unknown kind 'flot'");
}

TEST(Validation, KindAndDtypeDisagreeing) {  // dtype wins, as in the original framework
  std::string y = with_input("{type: tensor, shape: [2], kind: int, dtype: float32}");
  expect_warning(y, "{type", "tests[0].in[0]", "kind and dtype disagree: dtype float32 is used");
  EXPECT_EQ(testing::valid(y).tests[0].in[0].dtype, c10::ScalarType::Float);
}

TEST(Validation, UnknownInit) {
  std::string y = with_input("{type: tensor, shape: [2], kind: float, init: randn}");
  expect_error(y, "randn", "tests[0].in[0].init", "unknown init 'randn'");
}

TEST(Validation, InitMustApplyToTheDtype) {
  std::string y = with_input("{type: tensor, shape: [2], dtype: int64, init: normal}");
  expect_deferred(y, "normal", "tests[0].in[0].init", "init 'normal' cannot produce dtype int64");
  expect_deferred(with_input("{type: tensor, shape: [2], dtype: complex64, init: bernoulli}"), "bernoulli",
                  "tests[0].in[0].init", "init 'bernoulli' cannot produce dtype complex64");
}

TEST(Validation, ShapeMustBeANonEmptyList) {
  expect_error(with_input("{type: tensor, shape: [], kind: float}"), "[]", "tests[0].in[0].shape",
               "shape must be a non-empty list");
  expect_error(with_input("{type: tensor, kind: float}"), "{type", "tests[0].in[0]", "missing required key 'shape'");
}

TEST(Validation, NegativeSize) {
  expect_error(with_input("{type: tensor, shape: [2, -1], kind: float}"), "-1", "tests[0].in[0].shape[1]",
               "negative size -1");
}

TEST(Validation, UnknownDimSymbolWithSuggestion) {
  std::string y = with_input("{type: tensor, shape: [BATCH, 2], kind: float}", "dims: {BATCHES: 2}\n");
  expect_error(y, "BATCH,", "tests[0].in[0].shape[0]", "unknown dim symbol 'BATCH' (did you mean 'BATCHES'?)");
}

TEST(Validation, QuotedSymbolIsReadAsTheDim) {
  std::string y = with_input("{type: tensor, shape: [\"N\"], kind: float}", "dims: {N: 2}\n");
  expect_warning(y, "\"N\"", "tests[0].in[0].shape[0]",
                 "\"N\" is quoted, but dim symbols are written bare: read as dim N = 2");
  EXPECT_EQ(testing::valid(y).tests[0].in[0].shape, (std::vector<int64_t>{2}));
}

TEST(Validation, NumericStringsAreNumbers) {
  Suite s = testing::valid(
      with_input("{type: tensor, shape: [\"3\", N], kind: float, low: \"-1\", high: 1e1}", "dims: {N: 2}\n"));
  EXPECT_EQ(s.tests[0].in[0].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(s.tests[0].in[0].low, -1);
  EXPECT_EQ(s.tests[0].in[0].high, 10);  // plain 1e1 is a string in YAML 1.1, then a number
}

TEST(Validation, VarNotAllowedInShape) {
  std::string y = R"(tests:
  - id: t
    op:
      type: template_module
      path: torch.nn.ReLU
      vars: {n: [2]}
    in:
      - {type: tensor, shape: [{var: n}], kind: float}
)";
  expect_error(y, "{var: n}", "tests[0].in[0].shape[0]", "template variables are not allowed in shape");
}

TEST(Validation, LowAndHighTogether) {
  std::string y = with_input("{type: scalar, kind: float, low: 1}");
  expect_error(y, "1}", "tests[0].in[0].low", "low and high must be given together");
  // A tensor keeps the default of the other bound, as the original framework does.
  std::string tensor = with_input("{type: tensor, shape: [2], kind: float, high: 4}");
  expect_warning(tensor, "4}", "tests[0].in[0].high", "low and high go together: low keeps its default 0");
  EXPECT_EQ(testing::valid(tensor).tests[0].in[0].low, 0);
}

TEST(Validation, TensorLowAtMostHigh) {
  std::string y = with_input("{type: tensor, shape: [2], kind: float, low: 3, high: 2}");
  expect_deferred(y, "3,", "tests[0].in[0].low", "low must be at most high (low 3.0, high 2.0)");
  testing::valid(with_input("{type: tensor, shape: [2], kind: float, low: 2, high: 2}"));
}

TEST(Validation, ScalarLowLessThanHigh) {
  std::string y = with_input("{type: scalar, kind: int, low: 2, high: 2}");
  expect_error(y, "2,", "tests[0].in[0].low", "low must be less than high");
}

TEST(Validation, ProbabilitiesInUnitInterval) {
  expect_error(with_input("{type: scalar, kind: bool, p: 1.5}"), "1.5", "tests[0].in[0].p",
               "p must lie in [0, 1], got 1.5");
  expect_deferred(with_input("{type: tensor, shape: [2], kind: bool, p: 1.5}"), "1.5", "tests[0].in[0].p",
                  "p must lie in [0, 1], got 1.5");
  expect_error(with_input("{type: optional, p_none: -0.1, elem: {type: scalar, kind: int}}"), "-0.1",
               "tests[0].in[0].p_none", "p_none must lie in [0, 1], got -0.1");
}

TEST(Validation, NestedPathsInErrors) {
  std::string y = with_input("{type: list, len: 2, elem: {type: tensor, shape: [2], kind: float, low: x, high: 1}}");
  expect_error(y, "x,", "tests[0].in[0].elem.low", "unknown dim symbol 'x'");
}

TEST(Validation, StdNonNegative) {
  expect_deferred(with_input("{type: tensor, shape: [2], kind: float, std: -1}"), "-1", "tests[0].in[0].std",
                  "std must be non-negative, got -1.0");
}

TEST(Validation, ScalarValueNotFittingItsKindIsPassedAsWritten) {
  std::string y = with_input("{type: scalar, kind: int, value: 1.5}");
  expect_warning(y, "1.5", "tests[0].in[0].value", "value 1.5 does not fit kind int: it is passed as written");
  EXPECT_EQ(materialize_inputs(testing::valid(y).tests[0], 0).args[0].toDouble(), 1.5);
}

TEST(Validation, ConstTensorValueMatchesShape) {
  std::string y = with_input("{type: const_tensor, shape: [2, 2], kind: float, value: [[1, 2], [3]]}");
  expect_deferred(y, "[[1", "tests[0].in[0].value", "value has 3 elements, shape [2, 2] holds 4");
  expect_deferred(with_input("{type: const_tensor, shape: [2], kind: float, value: [1, a]}"), "a]",
                  "tests[0].in[0].value", "value element 'a' is not a number");
  // As many elements as the shape holds: reshaped, as torch.tensor(value).reshape(shape) does.
  std::string flat = with_input("{type: const_tensor, shape: [2, 2], kind: int, value: [1, 2, 3, 4.75]}");
  expect_warning(flat, "[1,", "tests[0].in[0].value",
                 "value is not nested as shape [2, 2]: its elements are reshaped to it");
  expect_warning(flat, "4.75", "tests[0].in[0].value", "value element 4.75 is truncated to dtype int64");
  auto t = materialize_inputs(testing::valid(flat).tests[0], 0).args[0].toTensor();
  EXPECT_TRUE(t.equal(at::arange(1, 5, at::kLong).reshape({2, 2})));
}

TEST(Validation, ScalarTensorValueFitsDtype) {
  std::string y = with_input("{type: scalar_tensor, kind: int, value: 2.5}");
  expect_warning(y, "2.5", "tests[0].in[0].value", "value element 2.5 is truncated to dtype int64");
  auto t = materialize_inputs(testing::valid(y).tests[0], 0).args[0].toTensor();
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.item<int64_t>(), 2);
}

TEST(Validation, IntListNonEmpty) {
  expect_error(with_input("{type: int_list, elems: []}"), "[]", "tests[0].in[0].elems",
               "elems must be a non-empty list of integers");
}

TEST(Validation, ListLengthNonNegative) {
  expect_error(with_input("{type: list, len: -2, elem: {type: scalar, kind: int}}"), "-2", "tests[0].in[0].len",
               "len must be non-negative");
  expect_error(with_input("{type: list, len: 2}"), "{type", "tests[0].in[0]", "missing required key 'elem'");
}

TEST(Validation, ConstNeedsValue) {
  expect_error(with_input("{type: const}"), "{type", "tests[0].in[0]", "missing required key 'value'");
}

TEST(Validation, UnknownPresetWithSuggestion) {
  std::string y = with_input("{ref: inptu}", "presets:\n  input: {type: scalar, kind: int}\n");
  expect_error(y, "inptu", "tests[0].in[0].ref", "unknown preset 'inptu' (did you mean 'input'?)");
}

TEST(Validation, PresetCycle) {
  std::string y = with_input("{ref: a}", "presets:\n  a: {ref: b}\n  b: {ref: a}\n");
  expect_error(y, "a}", "presets.b.ref", "preset 'a' refers to itself");
}

TEST(Validation, ErrorsInPresetsPointIntoThePreset) {
  std::string y =
      with_input("{type: scalar, kind: int}", "presets:\n  p: {type: tensor, shape: [2], kind: float, lo: 1}\n");
  expect_error(y, "lo:", "presets.p", "unknown key 'lo' (did you mean 'low'?)");
}

TEST(Validation, VarOutsideTemplate) {
  expect_error(with_input("{var: x}"), "{var", "tests[0].in[0]", "template variable used outside a template");
}

TEST(Validation, ModuleNeedsPath) {
  std::string y = "tests:\n  - {id: t, op: {type: module, args: [1]}, in: []}\n";
  expect_error(y, "{type: module", "tests[0].op", "missing required key 'path'");
}

TEST(Validation, ModuleUnknownKey) {
  std::string y = "tests:\n  - {id: t, op: {type: module, path: torch.nn.ReLU, kwarg: {}}, in: []}\n";
  expect_error(y, "kwarg", "tests[0].op", "unknown key 'kwarg' (did you mean 'kwargs'?)");
}

TEST(Validation, ConstructArgsMustBeAList) {  // and default to empty
  std::string y =
      "tests:\n  - {id: t, op: {type: module, path: torch.nn.Sequential, args: [{type: construct, "
      "path: torch.nn.ReLU, args: 3}]}, in: []}\n";
  expect_error(y, "3}", "tests[0].op.args[0].args", "args must be a list");
}

TEST(Validation, OpMustBeANameOrModule) {
  std::string y = "tests:\n  - {id: t, op: {type: tensor}, in: []}\n";
  expect_error(y, "{type: tensor", "tests[0].op", "op must be an operator name or a module");
}

const char* kTemplateHead =
    "dims: {N: 4}\ntests:\n  - id: t\n    op:\n      type: template_module\n      path: "
    "torch.nn.ReLU\n";

TEST(Validation, TemplateVarsNonEmptyLists) {
  std::string y = std::string(kTemplateHead) + "      vars: {a: [], b: 3}\n    in: []\n";
  expect_error(y, "[]", "tests[0].op.vars.a", "var 'a' must be a non-empty list of values");
  expect_error(y, "3}", "tests[0].op.vars.b", "var 'b' must be a non-empty list of values");
  std::string listed = std::string(kTemplateHead) + "      vars: [a]\n    in: []\n";
  expect_error(listed, "[a]", "tests[0].op.vars", "vars must be a mapping of var names to lists");
}

TEST(Validation, TemplateVarValuesArePlain) {  // a node among them is a literal mapping
  std::string y =
      std::string(kTemplateHead) + "      vars: {a: [{type: scalar, kind: int}]}\n      args: [{var: a}]\n    in: []\n";
  expect_warning(y, "{type: scalar", "tests[0].op.vars.a[0]",
                 "a var value is a plain value: this node is passed as a literal mapping");
  Suite s = testing::valid(y);
  const Node& arg = s.tests[0].module->args[0];
  EXPECT_EQ(arg.type, NodeType::Const);
  EXPECT_EQ(python_repr(arg.value), "{'type': 'scalar', 'kind': 'int'}");
}

TEST(Validation, TemplateQuotedDimValue) {
  std::string y =
      std::string(kTemplateHead) + "      vars: {feature: [\"N\"]}\n      args: [{var: feature}]\n    in: []\n";
  expect_warning(y, "\"N\"", "tests[0].op.vars.feature[0]", "read as dim N = 4");
  Suite s = testing::valid(y);
  EXPECT_EQ(s.tests[0].id, "t__feature=N");
  EXPECT_EQ(s.tests[0].module->args[0].value.i, 4);
}

TEST(Validation, TemplateQuotedDimValueInCase) {
  std::string y = std::string(kTemplateHead) + "      vars: {f: [N]}\n      cases:\n        - {f: 'N'}\n    in: []\n";
  expect_warning(y, "'N'", "tests[0].op.cases[0].f", "read as dim N = 4");
}

TEST(Validation, CasesOnlyUseDeclaredVars) {
  std::string y =
      std::string(kTemplateHead) + "      vars: {alpha: [1]}\n      cases:\n        - {alpah: 2}\n    in: []\n";
  expect_error(y, "alpah", "tests[0].op.cases[0]", "case uses undeclared var 'alpah' (did you mean 'alpha'?)");
}

TEST(Validation, UnknownTemplateVariable) {
  std::string y = std::string(kTemplateHead) + "      vars: {alpha: [1]}\n      args: [{var: alpa}]\n    in: []\n";
  expect_error(y, "alpa}", "tests[0].op.args[0]", "unknown template variable 'alpa' (did you mean 'alpha'?)");
}

TEST(Validation, TemplateUnknownKey) {
  std::string y = std::string(kTemplateHead) + "      vars: {a: [1]}\n      case: []\n    in: []\n";
  expect_error(y, "case:", "tests[0].op", "unknown key 'case' (did you mean 'cases'?)");
}

const char* kPair = R"(tests:
  - id: p
    op:
      type: template_compare_pair
      vars: {a: [1]}
      common: {args: [], kwarg: {}}
      a: {type: module, path: torch.nn.ReLU}
      b: {impl: y, type: modul, path: torch.nn.ReLU, arg: []}
    in: []
)";

TEST(Validation, CompareSideNeedsImpl) {
  expect_error(kPair, "{type: module", "tests[0].op.a.impl", "a compare side needs an impl");
}

TEST(Validation, CompareSideMustBeAModule) {
  expect_error(kPair, "modul,", "tests[0].op.b.type", "a compare side must be a module (type: module)");
}

TEST(Validation, CompareUnknownKeysInSidesAndCommon) {
  expect_error(kPair, "kwarg:", "tests[0].op.common", "unknown key 'kwarg' (did you mean 'kwargs'?)");
  expect_error(kPair, "arg: []}", "tests[0].op.b", "unknown key 'arg' (did you mean 'args'?)");
}

TEST(Validation, UnknownDevice) {
  std::string y = "tests:\n  - {id: t, op: aten::relu, in: [], device: cdua}\n";
  expect_error(y, "cdua", "tests[0].device", "unknown device 'cdua' (did you mean 'cuda'?)");
}

TEST(Validation, CastInput0ToComplex) {
  std::string y = "tests:\n  - {id: t, op: aten::relu, in: [], cast_input0_to_complex: maybe}\n";
  expect_error(y, "maybe}", "tests[0].cast_input0_to_complex", "cast_input0_to_complex must be a bool, got 'maybe'");
  std::string shape =
      "tests:\n  - {id: t, op: aten::fft_fft, in: [{type: tensor, shape: [4, 3], kind: float}], "
      "cast_input0_to_complex: 1}\n";  // 1 is true, as the original framework reads it
  expect_warning(shape, "1}", "tests[0].cast_input0_to_complex", "shape [..., 2]: the test fails when it runs");
}

TEST(Validation, DimsAreNonNegativeIntegers) {
  std::string y = "dims: {A: -1, B: 2.5, C: x}\ntests: []\n";
  expect_error(y, "-1", "dims.A", "dim 'A' must be a non-negative integer, got -1");
  expect_error(y, "2.5", "dims.B", "dim 'B' must be a non-negative integer, got 2.5");
  expect_error(y, "x}", "dims.C", "dim 'C' must be a non-negative integer, got 'x'");
}

TEST(Validation, AllErrorsReportedTogether) {
  std::string y = R"(tests:
  - {id: a, op: aten::relu, in: [{type: tensor, shape: [-1], kind: float}]}
  - {id: b, op: aten::relu, in: [{type: scalar, kind: int, low: 5, high: 1}]}
  - {id: c, op: aten::relu, in: [], devcie: cpu}
)";
  LoadResult r = read_suite_text(y, "t.yaml");
  EXPECT_EQ(r.diagnostics.error_count(), 3u) << r.diagnostics.str();
  std::string text = r.diagnostics.str();
  EXPECT_NE(text.find("t.yaml:2:57: error: tests[0] (a): tests[0].in[0].shape[0]: negative size -1"), std::string::npos)
      << text;
  EXPECT_NE(text.find("tests[1] (b): tests[1].in[0].low: low must be less than high"), std::string::npos) << text;
  EXPECT_NE(text.find("tests[2] (c): tests[2]: unknown key 'devcie' (did you mean 'device'?)"), std::string::npos)
      << text;
}

TEST(Validation, LoadSuiteThrowsWithEveryError) {
  std::string path = ::testing::TempDir() + "/two_errors.yaml";
  {
    std::ofstream f(path);
    f << "tests:\n  - {id: a, op: aten::relu, in: [{type: tensr}]}\n  - {id: b}\n";
  }
  try {
    load_suite(path);
    FAIL() << "expected SuiteError";
  } catch (const SuiteError& e) {
    EXPECT_EQ(e.diagnostics().error_count(), 3u) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'tensor'"), std::string::npos);
  }
}

TEST(Validation, ALayoutHasOneStridePerDimAndKeepsElementsApart) {
  expect_error(
      with_input("{type: const_tensor, shape: [2, 3], dtype: float32, strides: [1], value: [[1, 2, 3], [4, 5, 6]]}"),
      "[1]", "tests[0].in[0].strides", "one non-negative integer per dim (2)");
  expect_error(with_input("{type: const_tensor, shape: [2, 3], dtype: float32, strides: [1, -2]}"), "-2",
               "tests[0].in[0].strides[1]", "negative stride -2");
  // Rows 1 apart, columns 1 apart: elements [0][1] and [1][0] at the same place.
  expect_error(with_input("{type: const_tensor, shape: [2, 3], dtype: float32, strides: [1, 1]}"), "[1, 1]",
               "tests[0].in[0].strides", "make elements share memory");
  expect_error(with_input("{type: const_tensor, shape: [2, 3], dtype: float32, strides: [3, 1], offset: -1}"), "-1",
               "tests[0].in[0].offset", "negative offset -1");
  expect_error(with_input("{type: tensor, shape: [2, 3], dtype: float32, strides: [1, 2]}"), "strides",
               "tests[0].in[0]", "unknown key 'strides'");
  // opdiff's const_tensor takes unknown keys and passes the tensor contiguous: a warning says so.
  expect_warning(with_input("{type: const_tensor, shape: [2, 3], dtype: float32, strides: [1, 2], offset: 1}"),
                 "[1, 2]", "tests[0].in[0].strides", "a tensor's layout (strides, offset): opdiff ignores it");
}

TEST(Validation, ABackendSeedIsAnUnsignedInteger) {
  const std::string head = "tests:\n  - {id: t, op: aten::relu, in: [], backend_seed: ";
  EXPECT_EQ(testing::valid(head + "7}\n").tests.at(0).backend_seed, 7u);
  EXPECT_EQ(testing::valid(head + "\"0xfedcba9876543210\"}\n").tests.at(0).backend_seed, 0xfedcba9876543210u);
  EXPECT_EQ(testing::valid(head + "\"18446744073709551615\"}\n").tests.at(0).backend_seed, UINT64_MAX);
  EXPECT_FALSE(testing::valid("tests:\n  - {id: t, op: aten::relu, in: []}\n").tests.at(0).backend_seed);
  for (const char* bad : {"-1", "1.5", "\"0x\"", "\"18446744073709551616\"", "[1]"})
    expect_error(head + bad + "}\n", bad, "tests[0].backend_seed", "backend_seed must be a non-negative integer");
  // opdiff's test model forbids unknown fields.
  expect_warning(head + "7}\n", "7", "tests[0].backend_seed", "a test's backend_seed: opdiff refuses it");
}

}  // namespace
}  // namespace opsfuzz::suite

namespace opsfuzz::suite {
namespace {

TEST(Validation, DocumentShape) {
  expect_error("# only a comment\n", "# only", "", "a suite file must be a mapping with a 'tests' list");
  expect_error("tests: [3]\n", "3]", "tests[0]", "a test must be a mapping");
  expect_error("tests:\n  - {id: t, op: aten::relu, in: 3}\n", "3}", "tests[0].in", "in must be a list of nodes");
  expect_error("tests:\n  - {id: t, op: aten::relu, in: [], kwargs: [1]}\n", "[1]", "tests[0].kwargs",
               "kwargs must be a mapping of names to nodes");
  EXPECT_TRUE(testing::valid("tests:\n").tests.empty());
}

}  // namespace
}  // namespace opsfuzz::suite
