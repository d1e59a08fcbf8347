// `ops-fuzz generate --format yaml`: samples written as a YAML suite come back, loaded and
// materialized, with the same bits; the suite validates, with no warning but where it uses what
// opdiff's format cannot hold (bfloat16, complex pairs, bits), and runs.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <map>
#include <fstream>
#include <filesystem>
#include <limits>
#include <sstream>

#include "engine/config.h"
#include "opcall/opcall.h"
#include "specs/db/db.h"
#include "suite/materialize.h"
#include "suite/selection.h"
#include "tests/suite/run_util.h"
#include "suite/suite.h"
#include "tests/tools/cli_run.h"
#include "tools/sample_yaml.h"

namespace opsfuzz {
namespace {

using testing::cli;

// ---- comparing bits

// The tensor's bits as integers of its element's width (a complex one's parts), contiguous.
at::Tensor bit_patterns(const at::Tensor& t) {
  at::Tensor real = (t.is_complex() ? at::view_as_real(t) : t).contiguous();
  const at::ScalarType ints[] = {at::kByte, at::kShort, at::kInt, at::kLong};
  return real.view(ints[std::countr_zero(static_cast<unsigned>(real.element_size()))]);
}

::testing::AssertionResult same_bits(const at::Tensor& expected, const at::Tensor& actual) {
  if (expected.scalar_type() != actual.scalar_type() || expected.sizes() != actual.sizes())
    return ::testing::AssertionFailure() << "expected " << expected.scalar_type() << expected.sizes() << ", got "
                                         << actual.scalar_type() << actual.sizes();
  if (!at::equal(bit_patterns(expected), bit_patterns(actual)))
    return ::testing::AssertionFailure() << "bits differ:\n" << bit_patterns(expected) << "\n" << bit_patterns(actual);
  return ::testing::AssertionSuccess();
}

// Values bound to a schema: tensors and floats by their bits, lists element by element.
::testing::AssertionResult same_bits(const c10::IValue& expected, const c10::IValue& actual) {
  if (expected.isTensor() && actual.isTensor()) return same_bits(expected.toTensor(), actual.toTensor());
  if (expected.isDouble() && actual.isDouble()) {
    if (std::bit_cast<uint64_t>(expected.toDouble()) == std::bit_cast<uint64_t>(actual.toDouble()))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << expected.toDouble() << " != " << actual.toDouble();
  }
  if (expected.isList() && actual.isList()) {
    auto e = expected.toListRef(), a = actual.toListRef();
    if (e.size() != a.size()) return ::testing::AssertionFailure() << "list lengths " << e.size() << ", " << a.size();
    for (size_t k = 0; k < e.size(); ++k)
      if (auto r = same_bits(e[k], a[k]); !r) return r << " (list entry " << k << ")";
    return ::testing::AssertionSuccess();
  }
  if (expected.isTensor() || actual.isTensor() || !(expected == actual))
    return ::testing::AssertionFailure() << opcall::describe(expected) << " != " << opcall::describe(actual);
  return ::testing::AssertionSuccess();
}

// The same strides where they matter: along dims of size > 1, of a tensor with elements.
::testing::AssertionResult same_layout(const at::Tensor& expected, const at::Tensor& actual) {
  if (expected.numel() == 0) return ::testing::AssertionSuccess();
  for (int64_t d = 0; d < expected.dim(); ++d)
    if (expected.size(d) > 1 && expected.stride(d) != actual.stride(d))
      return ::testing::AssertionFailure() << "strides " << expected.strides() << " came back as " << actual.strides();
  return ::testing::AssertionSuccess();
}

// ---- suites

// What opdiff's format cannot hold, which generate writes as ops-fuzz extends the format: the
// loader's warning that opdiff refuses it is right there, and only there.
bool is_extension_warning(const suite::Diagnostic& d) {
  for (const char* what :
       {"dtype bfloat16", "an element written by its bits", "a complex element written as a [real, imaginary] pair"})
    if (d.message.starts_with(std::string(what) + ": opdiff refuses it when it loads the suite")) return true;
  return d.message.starts_with("a tensor's layout (strides, offset): opdiff ignores it");
}

// Loads suite text, expecting it valid with no warning but the extension's.
suite::Suite load(const std::string& yaml) {
  suite::LoadResult r = suite::read_suite_text(yaml, "generated.yaml");
  for (const suite::Diagnostic& d : r.diagnostics.all())
    EXPECT_TRUE(d.severity == suite::Diagnostic::Severity::Warning && is_extension_warning(d)) << d.str() << "\n"
                                                                                               << yaml.substr(0, 2000);
  EXPECT_TRUE(suite::reference_warnings(r.suite).empty());
  return std::move(r.suite);
}

// The node as input 0 of a one-test suite, loaded and materialized.
at::Tensor tensor_back(const at::Tensor& t) {
  std::string node = yaml_node(t);
  suite::Suite s = load("tests:\n  - {id: t, op: aten::clone, in: [" + node + "]}\n");
  if (s.tests.empty()) return {};
  return suite::materialize_inputs(s.tests[0], 0).args.at(0).toTensor();
}

// ---- special values

template <size_t Bytes> using Unsigned =
    std::conditional_t<Bytes == 2, uint16_t, std::conditional_t<Bytes == 4, uint32_t, uint64_t>>;

// Every kind of floating value of T: extremes, zeros, subnormals, infinities, NaNs with either sign
// and with a payload, and neighbours one ulp apart.
template <class T> std::vector<T> special_floats() {
  using L = std::numeric_limits<T>;
  using U = Unsigned<sizeof(T)>;
  auto bits = [](T x) { return std::bit_cast<U>(x); };
  auto from = [](auto u) { return std::bit_cast<T>(static_cast<U>(u)); };
  const U sign = U(1) << (8 * sizeof(T) - 1);
  const T one = static_cast<T>(1.0);
  return {L::min(),
          L::max(),
          L::lowest(),
          from(0),
          from(sign),
          L::denorm_min(),
          from(sign | bits(L::denorm_min())),
          from(bits(L::min()) - 1),  // the largest subnormal
          from(bits(L::denorm_min()) + 2),
          L::infinity(),
          from(sign | bits(L::infinity())),
          L::quiet_NaN(),
          from(sign | bits(L::quiet_NaN())),
          from(bits(L::quiet_NaN()) | 1),
          L::signaling_NaN(),
          one,
          from(bits(one) + 1),
          from(bits(one) - 1),
          from(bits(L::max()) - 1),
          static_cast<T>(0.1),
          static_cast<T>(-1.0 / 3),
          static_cast<T>(65504.0),
          static_cast<T>(1e-7),
          static_cast<T>(123456.789)};
}

template <class T> std::vector<T> special_ints() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), L::max(), T(0), T(1), T(L::min() + 1), T(L::max() - 1)};
  if constexpr (std::is_signed_v<T>) v.push_back(T(-1));
  if constexpr (sizeof(T) == 8) v.insert(v.end(), {T((1LL << 53) + 1), T(-(1LL << 53) - 1), T(1LL << 62)});
  return v;
}

template <class T> at::Tensor tensor_of(std::vector<T> values, at::ScalarType dtype) {
  return at::from_blob(values.data(), {static_cast<int64_t>(values.size())}, dtype).clone();
}

at::Tensor complex_of(const at::Tensor& parts) {  // pairs of consecutive parts
  return at::view_as_complex(parts.reshape({-1, 2}));
}

std::vector<at::Tensor> special_tensors() {
  at::Tensor f32 = tensor_of(special_floats<float>(), at::kFloat);
  at::Tensor f64 = tensor_of(special_floats<double>(), at::kDouble);
  return {tensor_of(std::vector<uint8_t>{1, 0, 1, 1}, at::kByte).to(at::kBool),
          tensor_of(special_ints<uint8_t>(), at::kByte),
          tensor_of(special_ints<int8_t>(), at::kChar),
          tensor_of(special_ints<int16_t>(), at::kShort),
          tensor_of(special_ints<int32_t>(), at::kInt),
          tensor_of(special_ints<int64_t>(), at::kLong),
          tensor_of(special_floats<c10::Half>(), at::kHalf),
          tensor_of(special_floats<c10::BFloat16>(), at::kBFloat16),
          f32,
          f64,
          complex_of(f32),
          complex_of(f64)};
}

class GenerateYaml : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { opcall::set_backtraces(false); }
};

TEST_F(GenerateYaml, SpecialValuesOfEveryDtypeComeBackWithTheirBits) {
  for (const at::Tensor& t : special_tensors()) {
    SCOPED_TRACE(yaml_node(t));
    EXPECT_TRUE(same_bits(t, tensor_back(t)));
    EXPECT_TRUE(same_bits(t[1], tensor_back(t[1])));  // 0-dim: a scalar_tensor
    at::Tensor square = t.slice(0, 0, 4).reshape({2, 2});
    EXPECT_TRUE(same_bits(square.t(), tensor_back(square.t())));  // non-contiguous: in its layout
    EXPECT_TRUE(same_bits(t.slice(0, 0, 0).reshape({3, 0}), tensor_back(t.slice(0, 0, 0).reshape({3, 0}))));
  }
}

TEST_F(GenerateYaml, RandomBitPatternsOfEveryFloatingDtypeComeBack) {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(7);
  at::Tensor words = at::randint(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), {4096}, g,
                                 at::TensorOptions().dtype(at::kInt));
  for (at::ScalarType dtype :
       {at::kHalf, at::kBFloat16, at::kFloat, at::kDouble, at::kComplexFloat, at::kComplexDouble}) {
    at::Tensor t = c10::isComplexType(dtype) ? complex_of(words.view(c10::toRealValueType(dtype))) : words.view(dtype);
    SCOPED_TRACE(c10::toString(dtype));
    EXPECT_TRUE(same_bits(t, tensor_back(t)));
  }
}

TEST_F(GenerateYaml, NonContiguousTensorsComeBackInTheirLayout) {
  at::Tensor t = at::arange(1, 121, at::kFloat).reshape({2, 3, 4, 5});
  at::Tensor wide = at::arange(1, 241, at::kDouble).reshape({2, 3, 4, 10});
  const at::Tensor layouts[] = {
      t.transpose(-1, -2),
      t.permute({2, 0, 3, 1}),
      wide.slice(3, 1, 10, 2),  // every other element, from offset 1
      t.contiguous(at::MemoryFormat::ChannelsLast),
      complex_of(at::arange(24, at::kFloat)).reshape({3, 4}).t(),
      at::empty({0, 3}, at::kLong).t(),
  };
  for (const at::Tensor& layout : layouts) {
    SCOPED_TRACE(yaml_node(layout).substr(0, 200));
    at::Tensor back = tensor_back(layout);
    EXPECT_TRUE(same_bits(layout, back));
    EXPECT_TRUE(same_layout(layout, back));
    if (layout.numel() > 0) EXPECT_EQ(back.storage_offset(), layout.storage_offset());
  }
  // An expanded tensor's elements share memory: written contiguous, by value.
  at::Tensor expanded = at::arange(3, at::kFloat).expand({4, 3});
  EXPECT_EQ(yaml_node(expanded).find("strides"), std::string::npos);
  EXPECT_TRUE(same_bits(expanded, tensor_back(expanded)));
  EXPECT_TRUE(tensor_back(expanded).is_contiguous());
}

TEST_F(GenerateYaml, FloatsAreWrittenShortAndReadable) {
  auto value_of = [](const at::Tensor& t) {
    std::string node = yaml_node(t);
    return node.substr(node.find("value: ") + 7);
  };
  EXPECT_EQ(value_of(at::tensor({0.1f, -0.0f, 1e-5f, 1e16f})), "[0.1, -0.0, 1.0e-05, 1.0e+16]}");
  EXPECT_EQ(value_of(at::tensor({0.1, 1.0 / 3})), "[0.1, 0.3333333333333333]}");
  EXPECT_EQ(value_of(at::tensor({0.1f}).to(at::kHalf)), "[0.1]}");
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(value_of(at::tensor({inf, -inf, nan, -nan})), "[.inf, -.inf, .nan, \"bits:0xffc00000\"]}");
  EXPECT_EQ(value_of(at::tensor({std::numeric_limits<int64_t>::min()})), "[-9223372036854775808]}");
  EXPECT_EQ(yaml_node(at::scalar_tensor(2.5, at::kDouble)), "{type: scalar_tensor, dtype: float64, value: 2.5}");
  EXPECT_EQ(yaml_node(complex_of(at::tensor({1.5f, -2.0f}))),
            "{type: const_tensor, shape: [1], dtype: complex64, value: [[1.5, -2.0]]}");
}

TEST_F(GenerateYaml, OtherValuesAreConstNodesOrTypedNodes) {
  EXPECT_EQ(yaml_node(c10::IValue()), "{type: const, value: null}");
  EXPECT_EQ(yaml_node(c10::IValue(true)), "{type: const, value: true}");
  EXPECT_EQ(yaml_node(c10::IValue(std::numeric_limits<int64_t>::min())), "{type: const, value: -9223372036854775808}");
  EXPECT_EQ(yaml_node(c10::IValue(-0.0)), "{type: const, value: -0.0}");
  EXPECT_EQ(yaml_node(c10::IValue(-std::numeric_limits<double>::quiet_NaN())),
            "{type: scalar, dtype: float64, value: \"bits:0xfff8000000000000\"}");
  EXPECT_EQ(yaml_node(c10::IValue(c10::List<int64_t>({1, -2}))), "{type: const, value: [1, -2]}");
  EXPECT_EQ(yaml_node(c10::IValue(c10::List<double>({0.5, 2.0}))), "{type: const, value: [0.5, 2.0]}");
  EXPECT_EQ(yaml_node(c10::IValue(c10::List<double>({0.5, -std::numeric_limits<double>::quiet_NaN()}))),
            "{type: tuple, elems: [{type: const, value: 0.5}, "
            "{type: scalar, dtype: float64, value: \"bits:0xfff8000000000000\"}]}");
  EXPECT_EQ(yaml_node(c10::IValue(std::string("sum"))), "{type: const, value: sum}");
  EXPECT_EQ(yaml_node(c10::IValue(std::string("yes"))), "{type: const, value: \"yes\"}");  // YAML would read a bool
  EXPECT_EQ(yaml_node(c10::IValue(std::string("ij,jk->ik"))), "{type: const, value: \"ij,jk->ik\"}");
  c10::List<c10::optional<at::Tensor>> indices({c10::nullopt, at::tensor({int64_t{1}})});
  EXPECT_EQ(yaml_node(indices),
            "{type: tuple, elems: [{type: const, value: null}, "
            "{type: const_tensor, shape: [1], dtype: int64, value: [1]}]}");
  EXPECT_EQ(yaml_argument(ArgType::ScalarTypeOpt, static_cast<int64_t>(at::kBFloat16)),
            "{type: const, value: bfloat16}");
  EXPECT_EQ(yaml_argument(ArgType::MemoryFormat, static_cast<int64_t>(at::MemoryFormat::ChannelsLast)),
            "{type: const, value: channels_last}");
  EXPECT_EQ(yaml_argument(ArgType::Int, int64_t{6}), "{type: const, value: 6}");
}

// Only what opdiff's format cannot hold draws its warning, once per kind: a literal where a node
// is expected never does.
TEST_F(GenerateYaml, OnlyWhatOpdiffCannotHoldIsWrittenAsTheExtension) {
  auto warnings_of = [](const std::vector<c10::IValue>& values) {
    std::string in;
    for (const auto& v : values) in += (in.empty() ? "" : ", ") + yaml_node(v);
    suite::LoadResult r = suite::read_suite_text("tests:\n  - {id: t, op: aten::clone, in: [" + in + "]}\n");
    EXPECT_FALSE(r.diagnostics.has_errors()) << r.diagnostics.str();
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics.warnings()) out.push_back(d.message.substr(0, d.message.find(':')));
    return out;
  };
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(warnings_of({c10::IValue(), c10::IValue(1.5), c10::IValue(int64_t{3}), c10::IValue(std::string("x")),
                           c10::IValue(c10::List<int64_t>({1})), c10::IValue(nan), at::tensor({1.0f, nan}),
                           at::scalar_tensor(2, at::kLong)})
                  .empty());
  EXPECT_EQ(warnings_of({at::tensor({1.0f, 2.0f}).to(at::kBFloat16), at::scalar_tensor(1.0, at::kBFloat16)}),
            std::vector<std::string>{"dtype bfloat16"});
  EXPECT_EQ(warnings_of({c10::IValue(-nan)}), std::vector<std::string>{"an element written by its bits"});
  EXPECT_EQ(warnings_of({complex_of(at::tensor({1.0f, 2.0f}))[0]}),
            std::vector<std::string>{"a complex element written as a [real, imaginary] pair"});
}

// ---- generated samples

// The sample's arguments and the suite test's materialized inputs, bound to the op's schema.
void expect_same_inputs(const Sample& s, const suite::Test& test) {
  SCOPED_TRACE(test.id);
  const opcall::Op& op = opcall::find_op("aten::" + s.op);
  suite::Inputs inputs = suite::materialize_inputs(test, 0);
  opcall::Stack expected, actual;
  auto why = op.try_bind(s.args, s.kwargs, expected);
  ASSERT_FALSE(why) << *why;  // generated samples bind, even invalid ones
  why = op.try_bind(inputs.args, inputs.kwargs, actual);
  ASSERT_FALSE(why) << *why;
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_TRUE(same_bits(expected[k], actual[k])) << op.schema().arguments()[k].name();
    if (expected[k].isTensor()) EXPECT_TRUE(same_layout(expected[k].toTensor(), actual[k].toTensor()));
  }
}

struct Generated {
  std::vector<Sample> samples;
  std::string yaml;
};

Generated generate(const std::string& op, const std::string& config, Validity validity, int n) {
  Generated out;
  std::ostringstream text;
  YamlSuiteWriter writer(text, YamlOrigin{5, config, validity == Validity::Invalid, std::nullopt});
  const Spec& spec = *find_spec(op);
  ArgumentTupleGenerator gen(spec, Config::parse(config), 5, validity);
  Sample s;
  for (int k = 0; k < n && gen.next(s); ++k) {
    writer.add(spec, s);
    out.samples.push_back(s);
  }
  writer.finish();
  out.yaml = text.str();
  return out;
}

TEST_F(GenerateYaml, GeneratedSamplesComeBackWithTheirBits) {
  // Tensor lists, optional tensors, complex tensors, dtypes, memory formats, strings, float lists.
  const char* ops[] = {"add.Tensor",
                       "cat.default",
                       "index.Tensor",
                       "col2im.default",
                       "empty.memory_format",
                       "_to_copy.default",
                       "upsample_bilinear2d.vec",
                       "einsum.default",
                       "scatter_reduce.two",
                       "clamp.default",
                       "full.default",
                       "nan_to_num.default"};
  size_t compared = 0;
  for (const char* op : ops)
    for (const char* config :
         {"", "extremes,half,transposed,zerodim,empty", "permuted", "strided", "channels_last", "complex,extremes"})
      for (Validity validity : {Validity::Valid, Validity::Invalid}) {
        SCOPED_TRACE(std::string(op) + " config '" + config + "'");
        Generated g = generate(op, config, validity, 8);
        suite::Suite s = load(g.yaml);
        ASSERT_EQ(s.tests.size(), g.samples.size());
        for (size_t k = 0; k < s.tests.size(); ++k, ++compared) expect_same_inputs(g.samples[k], s.tests[k]);
      }
  EXPECT_GT(compared, 300u);
}

TEST_F(GenerateYaml, EachTestSaysWhereItComesFrom) {
  Generated g = generate("add.Tensor", "half", Validity::Invalid, 3);
  suite::Suite s = load(g.yaml);
  ASSERT_EQ(s.tests.size(), 3u);
  EXPECT_EQ(s.tests[1].id, "add_Tensor__invalid__0001");
  EXPECT_EQ(s.tests[1].op, "aten::add.Tensor");
  EXPECT_NE(g.yaml.find("# add.Tensor invalid sample 1 of seed 5, config half: ops-fuzz generate add.Tensor "
                        "--seed 5 --index 1 --invalid --config half --format yaml\n"),
            std::string::npos)
      << g.yaml;
  EXPECT_NE(g.yaml.find("  # violates: " + g.samples[1].violated + "\n"), std::string::npos) << g.yaml;
  Sample late;
  late.op = "sum.dim_IntList", late.index = 12345;
  EXPECT_EQ(sample_id(late), "sum_dim_IntList__valid__12345");
}

// ---- the command

TEST_F(GenerateYaml, TheCommandWritesASuiteThatRuns) {
  auto r = cli({"generate", "add.Tensor", "mul.Tensor", "--max", "4", "--seed", "2", "--format", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  suite::Suite s = load(r.out);
  ASSERT_EQ(s.tests.size(), 8u);
  EXPECT_EQ(s.tests[0].id, "add_Tensor__valid__0000");
  EXPECT_EQ(s.tests[7].id, "mul_Tensor__valid__0003");
  for (const auto& outcome : suite::testing::run_eager(s))
    EXPECT_EQ(outcome.status, runner::Status::Ok) << outcome.id << ": " << outcome.message;

  auto one = cli({"generate", "add.Tensor", "--index", "7", "--format", "yaml"});
  suite::Suite single = load(one.out);
  ASSERT_EQ(single.tests.size(), 1u);
  EXPECT_EQ(single.tests[0].id, "add_Tensor__valid__0007");
}

// --minimal: one suite per op, as many tests as its summary line says, each of the pool's type
// categories in it, and every test runs.
TEST_F(GenerateYaml, MinimalSuitesOnePerOpThatRun) {
  auto summary = cli({"generate", "--minimal", "add.Tensor", "mm.default", "--pool", "300"});
  ASSERT_EQ(summary.code, 0) << summary.err;
  std::map<std::string, size_t> chosen;
  std::istringstream lines(summary.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string op;
    size_t pool = 0, n = 0;
    if (words >> op >> pool >> n && op != "total") chosen[op] = n;
  }
  ASSERT_EQ(chosen.size(), 2u) << summary.out;
  EXPECT_NE(summary.out.find("boolean,floating,integer"), std::string::npos) << summary.out;

  auto refused = cli({"generate", "--minimal", "add.Tensor", "mm.default", "--format", "yaml"});
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--out-dir"), std::string::npos) << refused.err;

  const auto dir = std::filesystem::temp_directory_path() / ("opsfuzz_minimal_" + std::to_string(::getpid()));
  auto r = cli({"generate", "--minimal", "add.Tensor", "mm.default", "--pool", "300", "--format", "yaml", "--out-dir",
                dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& [op, n] : chosen) {
    std::ifstream in(dir / (op == "add.Tensor" ? "add_Tensor.yaml" : "mm_default.yaml"));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    suite::Suite s = load(text);
    EXPECT_EQ(s.tests.size(), n) << op;
    for (const auto& outcome : suite::testing::run_eager(s))
      EXPECT_EQ(outcome.status, runner::Status::Ok) << outcome.id << ": " << outcome.message;
  }
  std::filesystem::remove_all(dir);
}

TEST_F(GenerateYaml, AnOpWithoutInvalidSamplesGivesAnEmptySuite) {
  auto r = cli({"generate", "mul.Scalar", "--invalid", "--format", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("tests:\n  []\n"), std::string::npos) << r.out;
  EXPECT_TRUE(load(r.out).tests.empty());
}

TEST_F(GenerateYaml, OutTensorsAreRefused) {
  auto r = cli({"generate", "add.Tensor", "--out", "--format", "yaml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
}

// ---- the format's extension: bits, complex pairs, int64 extremes

suite::LoadResult read(const std::string& node) {
  return suite::read_suite_text("tests:\n  - {id: t, op: aten::clone, in: [" + node + "]}\n");
}

TEST_F(GenerateYaml, BitsOfTheWrongWidthOrDtypeFailTheTestThatUsesThem) {
  auto narrow = read("{type: const_tensor, shape: [1], dtype: float32, value: [\"bits:0x7e00\"]}");
  ASSERT_FALSE(narrow.diagnostics.has_errors());
  ASSERT_EQ(narrow.diagnostics.warnings().size(), 1u);
  EXPECT_NE(narrow.diagnostics.str().find("has 4 hex digits, a float32 element has 8"), std::string::npos)
      << narrow.diagnostics.str();
  EXPECT_EQ(suite::testing::run_test(narrow.suite.tests[0]).status, runner::Status::Error);

  auto integral = read("{type: const_tensor, shape: [1], dtype: int32, value: [\"bits:0x00000001\"]}");
  EXPECT_NE(integral.diagnostics.str().find("only floating elements take"), std::string::npos)
      << integral.diagnostics.str();

  auto part = read("{type: const_tensor, shape: [1], dtype: complex128, value: [[1.0, \"bits:0x7ff0000000000001\"]]}");
  EXPECT_TRUE(part.diagnostics.all().empty()) << part.diagnostics.str();
  at::Tensor t = suite::materialize_inputs(part.suite.tests.at(0), 0).args.at(0).toTensor();
  EXPECT_EQ(std::bit_cast<uint64_t>(at::view_as_real(t)[0][1].item<double>()), 0x7ff0000000000001u);
}

TEST_F(GenerateYaml, ComplexValuesWithoutPairsStillGiveRealParts) {
  auto r = read("{type: const_tensor, shape: [2], dtype: complex64, value: [1.5, -2]}");
  ASSERT_TRUE(r.diagnostics.all().empty()) << r.diagnostics.str();
  at::Tensor t = suite::materialize_inputs(r.suite.tests.at(0), 0).args.at(0).toTensor();
  EXPECT_TRUE(at::equal(at::view_as_real(t), at::tensor({1.5f, 0.0f, -2.0f, 0.0f}).reshape({2, 2})));
}

TEST_F(GenerateYaml, TheYamlReaderTakesInt64Extremes) {
  EXPECT_EQ(suite::resolve_plain_scalar("-9223372036854775808").i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(suite::resolve_plain_scalar("9223372036854775807").i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(suite::resolve_plain_scalar("-0x8000000000000000").i, std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(suite::resolve_plain_scalar("9223372036854775808").is_string());  // beyond int64
  EXPECT_EQ(suite::resolve_plain_scalar("-1:30").i, -90);
  EXPECT_EQ(suite::yaml_float(1e-5), "1.0e-05");
  EXPECT_TRUE(suite::resolve_plain_scalar(suite::yaml_float(1e-5)).is_float());
  EXPECT_EQ(suite::yaml_float(0.1f, 0), "0.10000000149011612");
  EXPECT_EQ(suite::yaml_float(0.1f, 8), "0.1");
}

}  // namespace
}  // namespace opsfuzz
