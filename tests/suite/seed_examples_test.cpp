// Every YAML example of the format specification: validates, expands, runs.
#include <ATen/ATen.h>

#include "suite/materialize.h"
#include "run_util.h"
#include "test_util.h"

namespace opsfuzz::suite {
namespace {

using opsfuzz::testing::cli;
using testing::data;
using testing::ids;

TEST(SeedExamples, SimpleOperatorTest) {
  Suite s = load_suite(data("seed_simple_op.yaml"));
  EXPECT_EQ(ids(s), (std::vector<std::string>{"add_vectors"}));
  ASSERT_EQ(s.tests[0].in.size(), 2u);
  EXPECT_EQ(s.tests[0].in[0].shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(s.tests[0].in[0].dtype, at::kFloat);
  EXPECT_EQ(s.tests[0].in[0].init, Init::Normal);
  auto outcomes = run_eager(s);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].status, Status::Ok) << outcomes[0].message;
  EXPECT_EQ(outcomes[0].output.toTensor().sizes(), at::IntArrayRef({4}));
}

TEST(SeedExamples, ModuleTest) {
  Suite s = load_suite(data("seed_module.yaml"));
  EXPECT_EQ(ids(s), (std::vector<std::string>{"linear_forward"}));
  ASSERT_TRUE(s.tests[0].module);
  EXPECT_EQ(s.tests[0].module->path, "torch.nn.Linear");
  auto outcomes = run_eager(s);
  ASSERT_EQ(outcomes[0].status, Status::Ok) << outcomes[0].message;
  EXPECT_EQ(outcomes[0].output.toTensor().sizes(), at::IntArrayRef({2, 8}));
}

TEST(SeedExamples, TemplateModule) {
  Suite s = load_suite(data("seed_template.yaml"));
  EXPECT_EQ(ids(s), (std::vector<std::string>{
                        "mod_linear_template__bias=True__in_features=N__out_features=3",
                        "mod_linear_template__bias=True__in_features=N__out_features=5",
                        "mod_linear_template__bias=True__in_features=N__out_features=7",
                        "mod_linear_template__bias=False__in_features=N__out_features=3",
                        "mod_linear_template__bias=False__in_features=N__out_features=5",
                        "mod_linear_template__bias=False__in_features=N__out_features=7",
                    }));
  // The dim symbol N is substituted by its value 4.
  EXPECT_EQ(s.tests[0].module->args[0].value.i, 4);
  EXPECT_EQ(s.tests[3].module->kwargs[0].second.value.b, false);
  auto outcomes = run_eager(s);
  ASSERT_EQ(outcomes.size(), 6u);
  for (size_t k = 0; k < 6; ++k) {
    ASSERT_EQ(outcomes[k].status, Status::Ok) << outcomes[k].message;
    EXPECT_EQ(outcomes[k].output.toTensor().size(1), std::vector<int64_t>({3, 5, 7})[k % 3]);
  }
}

TEST(SeedExamples, TemplateWithCases) {
  Suite s = load_suite(data("seed_template_cases.yaml"));
  std::vector<std::string> expected;
  for (auto [in, preset] : {std::pair{"4", "x_feat4"}, std::pair{"8", "x_feat8"}})
    for (const char* bias : {"True", "False"})
      for (const char* out : {"8", "16", "32"})
        expected.push_back(std::string("mod_linear_cases_match_input_features__bias=") + bias + "__in_features=" + in +
                           "__input_preset=" + preset + "__out_features=" + out);
  EXPECT_EQ(ids(s), expected);
  EXPECT_EQ(s.tests[6].in[0].shape, (std::vector<int64_t>{2, 8}));  // the case's preset
  auto outcomes = run_eager(s);
  for (const auto& o : outcomes) EXPECT_EQ(o.status, Status::Ok) << o.id << ": " << o.message;
  EXPECT_EQ(outcomes.size(), 12u);
}

TEST(SeedExamples, TemplateComparePair) {
  Suite s = load_suite(data("seed_compare_pair.yaml"));
  EXPECT_EQ(ids(s), (std::vector<std::string>{
                        "linear_vs_linear__in_features=N__out_features=8__a",
                        "linear_vs_linear__in_features=N__out_features=8__b",
                        "linear_vs_linear__in_features=N__out_features=16__a",
                        "linear_vs_linear__in_features=N__out_features=16__b",
                    }));
  ASSERT_EQ(s.pairs.size(), 2u);
  EXPECT_EQ(s.pairs[1].id, "linear_vs_linear__in_features=N__out_features=16");
  EXPECT_EQ(s.tests[s.pairs[1].a].impl, "impl1");
  EXPECT_EQ(s.tests[s.pairs[1].b].impl, "impl2");
  EXPECT_EQ(s.tests[s.pairs[1].b].module->path, "file:my_model.py::MyLinear");
  auto outcomes = run_eager(s);
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(outcomes[0].status, Status::Ok) << outcomes[0].message;
  EXPECT_EQ(outcomes[1].status, Status::Skipped);
  EXPECT_NE(outcomes[1].message.find("Python source modules cannot be loaded"), std::string::npos);
  EXPECT_EQ(outcomes[2].output.toTensor().sizes(), at::IntArrayRef({4, 16}));
  // Both sides of a pair get the same inputs.
  auto a = materialize_inputs(s.tests[s.pairs[0].a], 7), b = materialize_inputs(s.tests[s.pairs[0].b], 7);
  EXPECT_TRUE(a.args[0].toTensor().equal(b.args[0].toTensor()));
}

TEST(SeedExamples, EveryExampleRunsThroughTheCli) {
  for (const char* f : {"seed_simple_op.yaml", "seed_module.yaml", "seed_template.yaml", "seed_template_cases.yaml",
                        "seed_compare_pair.yaml"}) {
    auto v = cli({"validate-yaml", data(f)});
    EXPECT_EQ(v.code, 0) << f << ": " << v.err;
    auto r = cli({"run-eager", data(f)});
    EXPECT_EQ(r.code, 0) << f << ": " << r.out << r.err;
    EXPECT_EQ(r.out.find("error "), std::string::npos) << r.out;
  }
  auto r = cli({"run-eager", data("seed_compare_pair.yaml")});
  EXPECT_NE(r.out.find("skipped linear_vs_linear__in_features=N__out_features=8__b: unsupported: "
                       "Python source modules cannot be loaded"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 ok, 0 errors, 2 skipped"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace opsfuzz::suite
