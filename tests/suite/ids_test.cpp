// Test ids: each rule of yaml-notes.md, so ids match those of existing suites.
#include "suite/ids.h"

#include "test_util.h"

namespace opsfuzz::suite {
namespace {

using testing::errors;
using testing::ids;
using testing::valid;

// A template_module test with the given vars (and extra op lines), base id `t`.
std::string templ(const std::string& vars, const std::string& extra = "", const std::string& id = "id: t") {
  return "dims: {N: 4, B: 2}\ntests:\n  - " + id +
         "\n    op:\n      type: template_module\n      path: torch.nn.ReLU\n      vars: " + vars + "\n" + extra +
         "    in: [{type: tensor, shape: [B, N], dtype: float32}]\n";
}

TEST(Ids, VarsSortedByNameWhateverTheirOrder) {
  EXPECT_EQ(ids(valid(templ("{zeta: [1], alpha: [2], Mid: [3]}"))),
            std::vector<std::string>{"t__Mid=3__alpha=2__zeta=1"});  // code point order
}

TEST(Ids, FirstNameVariesSlowest) {
  EXPECT_EQ(ids(valid(templ("{b: [1, 2], a: [x, y]}"))),
            (std::vector<std::string>{"t__a=x__b=1", "t__a=x__b=2", "t__a=y__b=1", "t__a=y__b=2"}));
}

TEST(Ids, ValuesRenderedAsPythonStr) {
  EXPECT_EQ(ids(valid(templ("{v: [true, false, ~, 0.5, 1.0e-5, 100000.0, -3, [1, a], {k: v}]}"))),
            (std::vector<std::string>{"t__v=True", "t__v=False", "t__v=None", "t__v=0_5", "t__v=1e-05", "t__v=100000_0",
                                      "t__v=-3", "t__v=_1___a__", "t__v=__k____v__"}));
}

TEST(Ids, SanitizingKeepsUnicodeLetters) {
  EXPECT_EQ(ids(valid(templ("{v: [café, 日本, a b, x/y, €5, Ω]}"))),
            (std::vector<std::string>{"t__v=café", "t__v=日本", "t__v=a_b", "t__v=x_y", "t__v=_5", "t__v=Ω"}));
  EXPECT_EQ(sanitize_id_value("a-b_c.d"), "a-b_c_d");
  // Python's isalnum: letters and numbers of every script, not marks or symbols.
  EXPECT_EQ(sanitize_id_value("²½①Ⅻǅー١𝟙"), "²½①Ⅻǅー١𝟙");
  EXPECT_EQ(sanitize_id_value("é\u0301·€😀ा"), "é_____");
  EXPECT_EQ(sanitize_op("aten::add.Tensor"), "aten__add_Tensor");
}

TEST(Ids, BaseIdAndVarNamesVerbatim) {
  EXPECT_EQ(ids(valid(templ("{my.var: [1]}", "", "id: base id/1"))), std::vector<std::string>{"base id/1__my.var=1"});
}

TEST(Ids, DimNamedValuesKeepTheSymbol) {
  Suite s = valid(templ("{n: [N, 3]}", "      args: [{var: n}]\n"));
  EXPECT_EQ(ids(s), (std::vector<std::string>{"t__n=N", "t__n=3"}));
  EXPECT_EQ(s.tests[0].module->args[0].value.i, 4);  // but the integer is substituted
}

TEST(Ids, YamlOneOneScalarsInIds) {
  EXPECT_EQ(ids(valid(templ("{v: [yes, Off, 1e5, 0x1F, 1_000, 1.5e+3, -.5, '1', \"true\"]}"))),
            (std::vector<std::string>{"t__v=True", "t__v=False", "t__v=1e5", "t__v=31", "t__v=1000", "t__v=1500_0",
                                      "t__v=-_5", "t__v=1", "t__v=true"}));
}

TEST(Ids, CasesFixTheirVarsAndTheRestIsAProduct) {
  Suite s = valid(templ("{a: [1, 2], b: [x, y], c: [7]}", "      cases:\n        - {a: 1}\n        - {a: 9, b: z}\n"));
  // The case value 9 and z need not be in the var lists.
  EXPECT_EQ(ids(s), (std::vector<std::string>{"t__a=1__b=x__c=7", "t__a=1__b=y__c=7", "t__a=9__b=z__c=7"}));
}

TEST(Ids, DefaultBaseIds) {
  EXPECT_EQ(ids(valid(templ("{a: [1]}", "", "id: ''"))), std::vector<std::string>{"template__a=1"});
  EXPECT_EQ(ids(valid(templ("{a: [1]}", "", "impl: x"))), std::vector<std::string>{"template__a=1"});
  Suite pair = valid(R"(
tests:
  - op:
      type: template_compare_pair
      vars: {a: [1]}
      a: {impl: x, type: module, path: torch.nn.ReLU}
      b: {impl: y, type: module, path: torch.nn.ReLU}
    in: [{type: tensor, shape: [2], dtype: float32}]
)");
  EXPECT_EQ(ids(pair), (std::vector<std::string>{"template_compare_pair__a=1__a", "template_compare_pair__a=1__b"}));
}

TEST(Ids, PairSides) {
  Suite s = valid(R"(
tests:
  - id: cmp
    op:
      type: template_compare_pair
      vars: {w: [2, 3]}
      common: {args: [{var: w}], kwargs: {bias: false, dtype: float32}}
      a: {impl: ia, type: module, path: torch.nn.Linear, args: [4, {var: w}]}
      b: {impl: ib, type: module, path: torch.nn.Linear, kwargs: {bias: true}}
    in: [{type: tensor, shape: [2, 4], dtype: float32}]
)");
  EXPECT_EQ(ids(s), (std::vector<std::string>{"cmp__w=2__a", "cmp__w=2__b", "cmp__w=3__a", "cmp__w=3__b"}));
  ASSERT_EQ(s.pairs.size(), 2u);
  EXPECT_EQ(s.pairs[0].id, "cmp__w=2");
  EXPECT_EQ(s.tests[0].impl, "ia");
  EXPECT_EQ(s.tests[1].impl, "ib");
  EXPECT_EQ(s.tests[0].pair, "cmp__w=2");
  // a's args replace common.args; b inherits them; b's kwargs are merged over common's.
  EXPECT_EQ(s.tests[0].module->args.size(), 2u);
  ASSERT_EQ(s.tests[1].module->args.size(), 1u);
  EXPECT_EQ(s.tests[1].module->args[0].value.i, 2);
  ASSERT_EQ(s.tests[1].module->kwargs.size(), 2u);
  EXPECT_EQ(s.tests[1].module->kwargs[0].first, "bias");
  EXPECT_TRUE(s.tests[1].module->kwargs[0].second.value.b);
  EXPECT_FALSE(s.tests[0].module->kwargs[0].second.value.b);
}

TEST(Ids, PlainTestsWithoutIdUseOpAndPosition) {
  Suite s = valid(R"(
tests:
  - {id: first, op: aten::relu, in: [{type: tensor, shape: [2], kind: float}]}
  - {op: aten::relu, in: [{type: tensor, shape: [2], kind: float}]}
  - {id: '', op: aten::add.Tensor, in: [{type: tensor, shape: [2], kind: float}, {type: tensor, shape: [2], kind: float}]}
  - {op: {type: module, path: torch.nn.ReLU}, in: [{type: tensor, shape: [2], kind: float}]}
)");
  EXPECT_EQ(ids(s), (std::vector<std::string>{"first", "aten__relu__1", "aten__add_Tensor__2", "torch_nn_ReLU__3"}));
}

TEST(Ids, VarNamedLikeADimIsBoundAndNotIterated) {
  LoadResult r = read_suite_text(templ("{N: [1, 2, 3], k: [5]}"), "t.yaml");
  EXPECT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str();
  EXPECT_EQ(ids(r.suite), std::vector<std::string>{"t__N=4__k=5"});
  ASSERT_EQ(r.suite.warnings.size(), 1u);
  EXPECT_NE(r.suite.warnings[0].find("has the name of a dim"), std::string::npos);
}

TEST(Ids, DuplicateIdsAreWarningsNamingBothOrigins) {  // and every test is kept, in order
  LoadResult r = read_suite_text(R"(tests:
  - {id: x, op: aten::relu, in: []}
  - {id: x, op: aten::neg, in: []}
)",
                                 "t.yaml");
  EXPECT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str();
  EXPECT_NE(r.diagnostics.str().find("t.yaml:3:5: warning: tests[1] (x): tests[1]: duplicate test "
                                     "id 'x' (also produced by the test at t.yaml:2:5)"),
            std::string::npos)
      << r.diagnostics.str();
  ASSERT_EQ(r.suite.tests.size(), 2u);
  EXPECT_EQ(r.suite.tests[1].op, "aten::neg");
}

TEST(Ids, DuplicatesFromTemplatesAreKept) {
  Suite s = valid(templ("{a: [1, 1]}"));
  EXPECT_EQ(ids(s), (std::vector<std::string>{"t__a=1", "t__a=1"}));
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("duplicate test id 't__a=1'"), std::string::npos);
}

TEST(IdFilter, ExactAndPrefixPatterns) {
  IdFilter f("a__x=1; b*");
  EXPECT_TRUE(f.matches("a__x=1"));
  EXPECT_FALSE(f.matches("a__x=10"));
  EXPECT_TRUE(f.matches("b"));
  EXPECT_TRUE(f.matches("bcd"));
  EXPECT_FALSE(f.matches("ab"));
  EXPECT_TRUE(IdFilter("").matches("anything"));
}

}  // namespace
}  // namespace opsfuzz::suite

namespace opsfuzz::suite {
namespace {

TEST(Expansion, ExplicitVarAndRefForms) {
  Suite s = testing::valid(R"(
presets:
  small: {type: tensor, shape: [2], kind: float}
  large: {type: tensor, shape: [8], kind: float}
tests:
  - id: e
    op:
      type: template_module
      path: {var: cls}
      vars: {cls: [torch.nn.ReLU], x: [small, large], s: [0.5]}
      kwargs: {inplace: false}
    in: [{type: ref, ref: {type: var, name: x}}]
    kwargs: {extra: {type: const, value: [{var: s}, 1]}}
)");
  ASSERT_EQ(ids(s),
            (std::vector<std::string>{"e__cls=torch_nn_ReLU__s=0_5__x=small", "e__cls=torch_nn_ReLU__s=0_5__x=large"}));
  EXPECT_EQ(s.tests[1].module->path, "torch.nn.ReLU");
  EXPECT_EQ(s.tests[1].in[0].shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(python_str(s.tests[0].kwargs[0].second.value), "[0.5, 1]");
}

TEST(Expansion, VarNodesNeedANonEmptyName) {
  std::string e = errors(templ("{a: [1]}", "      args: [{type: var, name: ''}]\n"));
  EXPECT_NE(e.find("tests[0].op.args[0]: a var node needs a non-empty string name"), std::string::npos) << e;
}

TEST(Expansion, LiteralInputsArePassedAsWritten) {
  Suite s = valid(
      "tests:\n  - {id: l, op: aten::sum, in: [{type: tensor, shape: [2, 2], kind: float}, [1], "
      "true]}\n");
  ASSERT_EQ(s.tests[0].in.size(), 3u);
  EXPECT_EQ(s.tests[0].in[1].type, NodeType::Const);
  EXPECT_EQ(python_str(s.tests[0].in[1].value), "[1]");
}

TEST(Expansion, DocumentShapeErrors) {
  std::string e = errors("include: [3]\ntests: {a: 1}\n");
  EXPECT_NE(e.find("t.yaml:1:11: error: include: include entries must be file names"), std::string::npos) << e;
  EXPECT_NE(e.find("t.yaml:2:8: error: tests: tests must be a list"), std::string::npos) << e;
  std::string m = errors("- a\n- b\n");
  EXPECT_NE(m.find("a suite file must be a mapping with a 'tests' list"), std::string::npos) << m;
}

}  // namespace
}  // namespace opsfuzz::suite
