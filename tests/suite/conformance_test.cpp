// What opdiff refuses when it loads a suite is refused here too (a located error), or, where
// ops-fuzz reads it on purpose, a located warning that says opdiff refuses it: one test per rule.
#include "test_util.h"

namespace opsfuzz::suite {
namespace {

using Severity = Diagnostic::Severity;

// "t.yaml:LINE:COLUMN" of the first occurrence of token in text.
std::string where(const std::string& text, const std::string& token) {
  size_t at = text.find(token);
  EXPECT_NE(at, std::string::npos) << token;
  int line = 1, column = 1;
  for (size_t k = 0; k < at && k < text.size(); ++k) {
    column = text[k] == '\n' ? 1 : column + 1;
    line += text[k] == '\n';
  }
  return "t.yaml:" + std::to_string(line) + ":" + std::to_string(column);
}

// A diagnostic of `severity` at `token`, with `path`, whose message contains `message`; with a
// warning, the suite has no error.
void expect_at(Severity severity, const std::string& yaml, const std::string& token, const std::string& path,
               const std::string& message) {
  LoadResult r = read_suite_text(yaml, "t.yaml");
  if (severity == Severity::Warning) { EXPECT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str(); }
  std::string pos = where(yaml, token);
  for (const auto& d : r.diagnostics.all())
    if (d.severity == severity && d.pos.str() == pos && d.path == path && d.message.find(message) != std::string::npos)
      return;
  ADD_FAILURE() << "no " << (severity == Severity::Error ? "error" : "warning") << " at " << pos << " path '" << path
                << "' with '" << message << "'; got:\n"
                << r.diagnostics.str();
}

void expect_error(const std::string& yaml, const std::string& token, const std::string& path,
                  const std::string& message) {
  expect_at(Severity::Error, yaml, token, path, message);
}

// The warning says that opdiff refuses it.
void expect_refused_by_opdiff(const std::string& yaml, const std::string& token, const std::string& path,
                              const std::string& message) {
  expect_at(Severity::Warning, yaml, token, path, message + ": opdiff refuses it when it loads the suite");
}

// Loads without a diagnostic of any kind.
void expect_clean(const std::string& yaml) {
  LoadResult r = read_suite_text(yaml, "t.yaml");
  EXPECT_TRUE(r.diagnostics.all().empty()) << r.diagnostics.str() << yaml;
}

std::string with_input(const std::string& node) {
  return "tests:\n  - id: t\n    op: aten::clone\n    in: [" + node + "]\n";
}

const std::string kX = "{type: tensor, shape: [2], dtype: float32}";

TEST(Conformance, OnlyTheFormatsDtypeNames) {
  expect_error(with_input("{type: tensor, shape: [2], dtype: long}"), "long", "tests[0].in[0].dtype",
               "unknown dtype 'long' (did you mean 'int64'?)");
  expect_error(with_input("{type: tensor, shape: [2], dtype: torch.float32}"), "torch.float32", "tests[0].in[0].dtype",
               "unknown dtype 'torch.float32' (did you mean 'float32'?)");
  expect_error(with_input("{type: scalar, dtype: double, value: 1.0}"), "double", "tests[0].in[0].dtype",
               "unknown dtype 'double' (did you mean 'float64'?)");
}

TEST(Conformance, Bfloat16IsReadAndOpdiffRefusesIt) {
  expect_refused_by_opdiff(with_input("{type: tensor, shape: [2], dtype: bfloat16}"), "bfloat16",
                           "tests[0].in[0].dtype", "dtype bfloat16");
}

TEST(Conformance, ScalarNeedsKindOrDtype) {
  expect_error(with_input("{type: scalar, value: 3}"), "{type: scalar", "tests[0].in[0]", "missing 'kind' or 'dtype'");
  expect_clean(with_input("{type: scalar, kind: int, value: 3}"));
}

TEST(Conformance, LiteralWhereANodeIsExpected) {
  std::string y = "tests:\n  - id: t\n    op: aten::add\n    in: [" + kX + ", 7]\n    kwargs: {alpha: 3}\n";
  expect_refused_by_opdiff(y, "7]", "tests[0].in[1]", "a literal where a node is expected");
  LoadResult r = read_suite_text(y, "t.yaml");
  EXPECT_NE(r.diagnostics.str().find("write {type: const, value: 7} (and 1 more in this suite)"), std::string::npos)
      << r.diagnostics.str();
  expect_refused_by_opdiff(with_input("{type: list, len: 2, elem: 5}"), "5}", "tests[0].in[0].elem",
                           "a literal where a node is expected");
  expect_refused_by_opdiff(with_input("{type: tuple, elems: [" + kX + ", [1, 2]]}"), "[1, 2]",
                           "tests[0].in[0].elems[1]", "a literal where a node is expected");
  expect_refused_by_opdiff(with_input("{type: optional, elem: 1.5}"), "1.5", "tests[0].in[0].elem",
                           "a literal where a node is expected");
  expect_refused_by_opdiff("presets: {two: 2}\n" + with_input(kX), "2}", "presets.two",
                           "a literal where a node is expected");
  // Among a module's arguments opdiff takes anything.
  expect_clean("tests:\n  - {id: t, op: {type: module, path: torch.nn.Linear, args: [2, 3]}, in: [" + kX + "]}\n");
}

TEST(Conformance, ModuleOrConstructAmongValues) {
  expect_refused_by_opdiff(with_input("{type: construct, path: torch.nn.ReLU}"), "construct", "tests[0].in[0].type",
                           "a construct node among a test's values or a preset");
  expect_refused_by_opdiff("presets: {m: {type: module, path: torch.nn.ReLU}}\n" + with_input(kX), "module",
                           "presets.m.type", "a module node among a test's values or a preset");
}

std::string templ(const std::string& op_rest, const std::string& in) {
  return "presets: {x: " + kX + "}\ntests:\n  - id: t\n    op: {type: template_module, " + op_rest + "}\n    in: [" +
         in + "]\n";
}

TEST(Conformance, VarInInputsOtherThanARefsTarget) {
  expect_refused_by_opdiff(
      templ("path: torch.nn.ReLU, vars: {dt: [float32]}", "{type: tensor, shape: [2], dtype: {var: dt}}"), "{var: dt}",
      "tests[0].in[0].dtype", "a template variable in a test's in or kwargs other than a ref's target");
  expect_clean(templ("path: torch.nn.ReLU, vars: {p: [x]}", "{ref: {var: p}}"));
}

TEST(Conformance, VarAsTemplatePath) {
  expect_refused_by_opdiff(templ("path: {var: m}, vars: {m: [torch.nn.ReLU]}", kX), "{var: m}", "tests[0].op.path",
                           "a template variable as a module path");
}

TEST(Conformance, NullArgsAndKwargs) {
  std::string module = "tests:\n  - {id: t, op: {type: module, path: torch.nn.ReLU, args: null}, in: [" + kX + "]}\n";
  expect_error(module, "null", "tests[0].op.args", "args must be a list (leave it out for none)");
  std::string kwargs = "tests:\n  - {id: t, op: {type: module, path: torch.nn.ReLU, kwargs: null}, in: [" + kX + "]}\n";
  expect_error(kwargs, "null", "tests[0].op.kwargs", "kwargs must be a mapping (leave it out for none)");
  expect_error(templ("path: torch.nn.ReLU, args: null", kX), "null", "tests[0].op.args", "args must be a list");
  std::string test = "tests:\n  - {id: t, op: aten::relu, in: [" + kX + "], kwargs: null}\n";
  expect_error(test, "null", "tests[0].kwargs", "kwargs must be a mapping of names to nodes (leave it out for none)");
}

TEST(Conformance, NullVarsCasesAndCommon) {
  expect_error(templ("path: torch.nn.ReLU, vars: null", kX), "null", "tests[0].op.vars",
               "vars must be a mapping of var names to lists of values (leave it out for none)");
  expect_error(templ("path: torch.nn.ReLU, vars: {a: [1]}, cases: null", kX), "null", "tests[0].op.cases",
               "cases must be a list of mappings (leave it out for none)");
  std::string pair =
      "tests:\n  - id: p\n    op: {type: template_compare_pair, common: null, a: {impl: x, path: "
      "torch.nn.ReLU}, b: {impl: y, path: torch.nn.ReLU}}\n    in: [" +
      kX + "]\n";
  expect_error(pair, "null", "tests[0].op.common", "common must be a mapping with args and kwargs (leave it out");
}

TEST(Conformance, EmptyCase) {
  expect_error(templ("path: torch.nn.ReLU, vars: {a: [1]}, cases: [{a: 1}, {}]", kX), "{}", "tests[0].op.cases[1]",
               "a case must be a non-empty mapping");
}

TEST(Conformance, KeysOpdiffReadsAsStringsOnly) {
  std::string test = "tests:\n  - {id: t, op: aten::relu, in: [" + kX + "], kwargs: {1: {type: const, value: 2}}}\n";
  expect_error(test, "1:", "tests[0].kwargs", "kwargs names must be strings, got 1");
  std::string module =
      "tests:\n  - {id: t, op: {type: module, path: torch.nn.ReLU, kwargs: {7: 2}}, in: [" + kX + "]}\n";
  expect_error(module, "7:", "tests[0].op.kwargs", "kwargs names must be strings, got 7");
  expect_error(templ("path: torch.nn.ReLU, vars: {1: [2]}", kX), "1:", "tests[0].op.vars",
               "var names must be non-empty strings, got 1");
  expect_error(templ("path: torch.nn.ReLU, vars: {' ': [2]}", kX), "' '", "tests[0].op.vars",
               "var names must be non-empty strings, got ' '");
  expect_error(templ("path: torch.nn.ReLU, vars: {a: [1]}, cases: [{a: 1, 2: 3}]", kX), "2:", "tests[0].op.cases[0]",
               "var names must be non-empty strings, got 2");
  expect_error(with_input("{type: const, value: {3: x}}"), "3:", "tests[0].in[0].value",
               "a value's mapping keys must be strings, got 3");
  expect_error(templ("path: torch.nn.ReLU, vars: {a: [{k: {4: v}}]}", kX), "4:", "tests[0].op.vars.a[0]",
               "a value's mapping keys must be strings, got 4");
}

TEST(Conformance, IdAndImplAreStrings) {
  expect_error("tests:\n  - {id: 5, op: aten::relu, in: [" + kX + "]}\n", "5,", "tests[0].id",
               "id must be a string, got int 5 (opdiff refuses it; quote it)");
  expect_error("tests:\n  - {id: t, impl: 1.5, op: aten::relu, in: [" + kX + "]}\n", "1.5", "tests[0].impl",
               "impl must be a string, got float 1.5");
  expect_error("tests:\n  - {id: true, op: {type: template_module, path: torch.nn.ReLU}, in: [" + kX + "]}\n", "true",
               "tests[0].id", "id must be a string, got bool True");
  expect_clean("tests:\n  - {id: '5', impl: null, op: aten::relu, in: [" + kX + "]}\n");
}

TEST(Conformance, DimSymbolsWhereOpdiffReadsNumbers) {
  std::string dims = "dims: {N: 2}\n";
  for (const char* key : {"mean", "std", "p"})
    expect_error(dims + with_input(std::string("{type: tensor, shape: [N], dtype: float32, ") + key + ": N}"), "N}",
                 std::string("tests[0].in[0].") + key, "dim symbols are not allowed here");
  expect_error(dims + with_input("{type: scalar, kind: bool, p: N}"), "N}", "tests[0].in[0].p",
               "dim symbols are not allowed here");
  expect_error(dims + with_input("{type: optional, p_none: N, elem: " + kX + "}"), "N,", "tests[0].in[0].p_none",
               "dim symbols are not allowed here");
  expect_error(dims + with_input("{type: int_list, elems: [1, N]}"), "N]", "tests[0].in[0].elems[1]",
               "dim symbols are not allowed here");
  // Numbers written as strings stay numbers, as opdiff coerces them; low and high take dims.
  expect_clean(dims + with_input("{type: tensor, shape: [N], dtype: float32, mean: '0.5', low: 0, high: N}"));
}

TEST(Conformance, ScalarTensorValueIsOneNumber) {
  expect_error(with_input("{type: scalar_tensor, dtype: float32, value: [1.0]}"), "[1.0]", "tests[0].in[0].value",
               "a scalar_tensor's value must be a number or a bool, got list");
  expect_refused_by_opdiff(with_input("{type: scalar_tensor, dtype: float32, value: \"bits:0x7fc00001\"}"), "\"bits",
                           "tests[0].in[0].value", "an element written by its bits");
  expect_refused_by_opdiff(with_input("{type: scalar_tensor, dtype: complex64, value: [1.0, 2.0]}"), "[1.0",
                           "tests[0].in[0].value", "a complex element written as a [real, imaginary] pair");
}

TEST(Conformance, ScalarValueByItsBits) {
  expect_refused_by_opdiff(with_input("{type: scalar, dtype: float64, value: \"bits:0xfff8000000000001\"}"), "\"bits",
                           "tests[0].in[0].value", "an element written by its bits");
}

TEST(Conformance, OutThatIsNotANode) {
  std::string y = "tests:\n  - {id: t, op: aten::relu, in: [" + kX + "], out: [1, 2]}\n";
  expect_refused_by_opdiff(y, "[1, 2]", "tests[0].out", "an out that is not a node opdiff reads");
  expect_refused_by_opdiff("tests:\n  - {id: t, op: aten::relu, in: [" + kX + "], out: {shape: [2]}}\n", "{shape",
                           "tests[0].out", "an out that is not a node opdiff reads");
  expect_clean("tests:\n  - {id: t, op: aten::relu, in: [" + kX + "], out: " + kX + "}\n");
  expect_clean("tests:\n  - {id: t, op: aten::relu, in: [" + kX + "], out: null}\n");
}

std::string pair(const std::string& common, const std::string& a_rest) {
  return "tests:\n  - id: p\n    op:\n      type: template_compare_pair\n      common: " + common +
         "\n      a: {impl: x, path: torch.nn.Linear" + a_rest + "}\n      b: {impl: y, path: torch.nn.Linear}\n" +
         "    in: [{type: tensor, shape: [1, 2], dtype: float32}]\n";
}

TEST(Conformance, CompareSidesAsOpdiffReadsThem) {
  // A side's null args is none given: common.args stand, as opdiff reads it; a null common.args
  // or common.kwargs is none.
  Suite s = testing::valid(pair("{args: [2, 3]}", ", args: null"));
  ASSERT_EQ(s.tests.size(), 2u);
  ASSERT_TRUE(s.tests[0].module.has_value());
  EXPECT_EQ(s.tests[0].module->args.size(), 2u);
  LoadResult nulls = read_suite_text(pair("{args: null, kwargs: null}", ""), "t.yaml");
  EXPECT_FALSE(nulls.diagnostics.has_errors()) << nulls.diagnostics.str();
  expect_error(pair("{args: [2, 3], kwargs: [1]}", ""), "[1]", "tests[0].op.common.kwargs",
               "common.kwargs must be a mapping");
  expect_error(pair("{args: [2, 3]}", ", kwargs: 4"), "4}", "tests[0].op.a.kwargs", "kwargs must be a mapping");
}

}  // namespace
}  // namespace opsfuzz::suite
