// Materialization: every node kind and init method, statistically on large samples; determinism.
#include "suite/materialize.h"

#include <ATen/ATen.h>

#include <cstring>
#include <set>

#include "test_util.h"

namespace opsfuzz::suite {
namespace {

using testing::valid;

// The first input node of a one-test suite.
Node input(const std::string& node, const std::string& head = "") {
  Suite s = valid(head + "tests:\n  - {id: t, op: aten::relu, in: [" + node + "]}\n");
  EXPECT_EQ(s.tests.size(), 1u);
  return s.tests.empty() ? Node{} : s.tests[0].in.at(0);
}

at::Tensor sample(const std::string& node, uint64_t seed = 1, const std::string& head = "") {
  return materialize(input(node, head), seed).toTensor();
}

double average(const at::Tensor& t) { return t.to(at::kDouble).mean().item<double>(); }
double deviation(const at::Tensor& t) { return t.to(at::kDouble).std().item<double>(); }

TEST(Materialize, NormalHonorsMeanAndStd) {
  at::Tensor t = sample("{type: tensor, shape: [200000], dtype: float64, init: normal, mean: 2, std: 0.5}");
  EXPECT_NEAR(average(t), 2.0, 0.01);
  EXPECT_NEAR(deviation(t), 0.5, 0.01);
}

TEST(Materialize, NormalDefaultForFloats) {
  Node n = input("{type: tensor, shape: [100000], kind: float}");
  EXPECT_EQ(n.init, Init::Normal);
  at::Tensor t = materialize(n, 3).toTensor();
  EXPECT_EQ(t.scalar_type(), at::kFloat);
  EXPECT_NEAR(average(t), 0.0, 0.02);
  EXPECT_NEAR(deviation(t), 1.0, 0.02);
}

TEST(Materialize, NormalWithRangeIsClamped) {
  Node n = input("{type: tensor, shape: [10000], kind: float, low: -0.5, high: 0.5}");
  EXPECT_EQ(n.init, Init::Normal);  // the default by dtype, range or not
  at::Tensor t = materialize(n, 1).toTensor();
  EXPECT_GT(deviation(t), 0.3);  // spread inside the range, not only at its ends
  EXPECT_GE(t.min().item<float>(), -0.5f);
  EXPECT_LE(t.max().item<float>(), 0.5f);
}

TEST(Materialize, UniformStaysInRange) {
  at::Tensor t = sample("{type: tensor, shape: [100000], dtype: float64, init: uniform, low: -1, high: 3}");
  EXPECT_GE(t.min().item<double>(), -1.0);
  EXPECT_LE(t.max().item<double>(), 3.0);
  EXPECT_NEAR(average(t), 1.0, 0.02);
  EXPECT_NEAR(deviation(t), 4.0 / std::sqrt(12.0), 0.01);
}

TEST(Materialize, RandintIsInclusiveOfHigh) {
  at::Tensor t = sample("{type: tensor, shape: [100000], dtype: int32, init: randint, low: 2, high: 5}");
  EXPECT_EQ(t.scalar_type(), at::kInt);
  EXPECT_EQ(t.min().item<int>(), 2);
  EXPECT_EQ(t.max().item<int>(), 5);
  EXPECT_NEAR(average(t), 3.5, 0.02);
  at::Tensor d = sample("{type: tensor, shape: [100000], kind: int}");  // default 0..10
  EXPECT_EQ(d.scalar_type(), at::kLong);
  EXPECT_EQ(d.min().item<int64_t>(), 0);
  EXPECT_EQ(d.max().item<int64_t>(), 10);
  EXPECT_NEAR(average(d), 5.0, 0.05);
}

TEST(Materialize, BernoulliHonorsP) {
  at::Tensor f = sample("{type: tensor, shape: [100000], kind: float, init: bernoulli, p: 0.2}");
  EXPECT_TRUE(at::logical_or(f == 0, f == 1).all().item<bool>());
  EXPECT_NEAR(average(f), 0.2, 0.01);
  at::Tensor b = sample("{type: tensor, shape: [100000], kind: bool, p: 0.9}");
  EXPECT_EQ(b.scalar_type(), at::kBool);
  EXPECT_NEAR(average(b), 0.9, 0.01);
}

TEST(Materialize, ZerosAndOnes) {
  EXPECT_TRUE(sample("{type: tensor, shape: [3, 2], kind: int, init: zeros}").eq(0).all().item<bool>());
  at::Tensor ones = sample("{type: tensor, shape: [3, 2], dtype: float16, init: ones}");
  EXPECT_EQ(ones.scalar_type(), at::kHalf);
  EXPECT_TRUE(ones.eq(1).all().item<bool>());
}

TEST(Materialize, EveryListedDtype) {
  const std::pair<const char*, at::ScalarType> dtypes[] = {{"float16", at::kHalf},
                                                           {"bfloat16", at::kBFloat16},
                                                           {"float32", at::kFloat},
                                                           {"float64", at::kDouble},
                                                           {"int8", at::kChar},
                                                           {"int16", at::kShort},
                                                           {"int32", at::kInt},
                                                           {"int64", at::kLong},
                                                           {"uint8", at::kByte},
                                                           {"bool", at::kBool},
                                                           {"complex64", at::kComplexFloat},
                                                           {"complex128", at::kComplexDouble}};
  for (auto [name, type] : dtypes) {
    at::Tensor t = sample(std::string("{type: tensor, shape: [2, 3], dtype: ") + name + "}");
    EXPECT_EQ(t.scalar_type(), type) << name;
    EXPECT_EQ(t.sizes(), at::IntArrayRef({2, 3})) << name;
  }
}

TEST(Materialize, ComplexPartsAreIndependent) {
  at::Tensor t = sample("{type: tensor, shape: [100000], dtype: complex128}");
  at::Tensor re = at::real(t), im = at::imag(t);
  EXPECT_NEAR(deviation(re), 1.0, 0.02);
  EXPECT_NEAR(deviation(im), 1.0, 0.02);
  EXPECT_NEAR(average(re * im), 0.0, 0.02);  // uncorrelated
}

TEST(Materialize, RequiresGradOnFloatingOnly) {
  EXPECT_TRUE(sample("{type: tensor, shape: [2], kind: float, requires_grad: true}").requires_grad());
  EXPECT_FALSE(sample("{type: tensor, shape: [2], kind: int, requires_grad: true}").requires_grad());
}

TEST(Materialize, DimsInShapesAndRanges) {
  at::Tensor t = sample("{type: tensor, shape: [B, N], kind: int, low: N, high: N}", 1, "dims: {B: 2, N: 3}\n");
  EXPECT_EQ(t.sizes(), at::IntArrayRef({2, 3}));
  EXPECT_TRUE(t.eq(3).all().item<bool>());
}

TEST(Materialize, Scalars) {
  Node i = input("{type: scalar, kind: int}");
  std::set<int64_t> seen;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    c10::IValue v = materialize(i, seed);
    ASSERT_TRUE(v.isInt());
    seen.insert(v.toInt());
  }
  EXPECT_EQ(seen, (std::set<int64_t>{-3, -2, -1, 0, 1, 2, 3}));  // default range, inclusive
  Node f = input("{type: scalar, kind: float, low: 1, high: 2}");
  for (uint64_t seed = 0; seed < 100; ++seed) {
    double x = materialize(f, seed).toDouble();
    EXPECT_GE(x, 1.0);
    EXPECT_LE(x, 2.0);
  }
  Node b = input("{type: scalar, kind: bool, p: 0.25}");
  int trues = 0;
  for (uint64_t seed = 0; seed < 4000; ++seed) trues += materialize(b, seed).toBool();
  EXPECT_NEAR(trues / 4000.0, 0.25, 0.03);
  EXPECT_EQ(materialize(input("{type: scalar, kind: float, value: 2}"), 0).toDouble(), 2.0);
  EXPECT_EQ(materialize(input("{type: scalar, kind: int, value: 7}"), 0).toInt(), 7);
}

TEST(Materialize, ScalarTensorIsRankZero) {
  at::Tensor t = sample("{type: scalar_tensor, dtype: float64, init: uniform, low: 5, high: 6}");
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.scalar_type(), at::kDouble);
  EXPECT_GE(t.item<double>(), 5.0);
  at::Tensor v = sample("{type: scalar_tensor, kind: int, value: 4}");
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(v.item<int64_t>(), 4);
}

TEST(Materialize, ConstTensorValuesAndSampling) {
  at::Tensor t = sample("{type: const_tensor, shape: [2, 2], dtype: int64, value: [[1, 2], [3, 9007199254740993]]}");
  EXPECT_EQ(t[1][1].item<int64_t>(), 9007199254740993);  // exact beyond 2^53
  at::Tensor f = sample("{type: const_tensor, shape: [3], kind: float, value: [0.5, 1, true]}");
  EXPECT_TRUE(f.equal(at::tensor({0.5f, 1.0f, 1.0f})));
  EXPECT_TRUE(sample("{type: const_tensor, shape: [4], kind: float, init: ones}").eq(1).all().item<bool>());
}

TEST(Materialize, ConstTensorInItsLayout) {
  at::Tensor t = sample(
      "{type: const_tensor, shape: [2, 3], dtype: int64, strides: [1, 4], offset: 2, value: [[1, 2, 3], [4, 5, 6]]}");
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(t.storage_offset(), 2);
  EXPECT_TRUE(t.equal(at::tensor({1, 2, 3, 4, 5, 6}, at::kLong).reshape({2, 3})));
  // The storage: the gaps and what comes before the offset hold int64's largest (opcall/gaps.h).
  at::Tensor storage = at::empty({0}, t.options()).set_(t.storage());
  const int64_t g = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(storage.equal(at::tensor(std::vector<int64_t>{g, g, 1, 4, g, g, 2, 5, g, g, 3, 6}, at::kLong)));
  at::Tensor sampled = sample("{type: const_tensor, shape: [3, 2], kind: float, init: ones, strides: [1, 3]}");
  EXPECT_EQ(sampled.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(sampled.eq(1).all().item<bool>());
  EXPECT_EQ(sample("{type: const_tensor, shape: [0, 3], dtype: float32, strides: [1, 1], value: []}").numel(), 0);
}

TEST(Materialize, Lists) {
  EXPECT_EQ(materialize(input("{type: int_list, elems: [1, '5', 2.0]}"), 0).toIntVector(),  // as opdiff coerces them
            (std::vector<int64_t>{1, 5, 2}));
  c10::IValue tensors = materialize(input("{type: list, len: 3, elem: {type: tensor, shape: [2], kind: float}}"), 0);
  ASSERT_TRUE(tensors.isTensorList());
  EXPECT_EQ(tensors.toTensorList().size(), 3u);
  // The elements are drawn one after another: they differ.
  EXPECT_FALSE(tensors.toTensorList().get(0).equal(tensors.toTensorList().get(1)));
  EXPECT_TRUE(
      materialize(input("{type: list, len: 0, elem: {type: tensor, shape: [2], kind: float}}"), 0).isTensorList());
  c10::IValue ints = materialize(input("{type: list, len: 4, elem: {type: scalar, kind: int}}"), 0);
  EXPECT_TRUE(ints.isIntList());
}

TEST(Materialize, Tuples) {
  c10::IValue t =
      materialize(input("{type: tuple, elems: [{type: scalar, kind: int, value: 1}, {type: const, value: x}]}"), 0);
  ASSERT_TRUE(t.isTuple());
  EXPECT_EQ(t.toTupleRef().elements()[0].toInt(), 1);
  EXPECT_EQ(t.toTupleRef().elements()[1].toStringRef(), "x");
}

TEST(Materialize, OptionalHonorsPNone) {
  Node n = input("{type: optional, p_none: 0.3, elem: {type: scalar, kind: int}}");
  int nones = 0;
  for (uint64_t seed = 0; seed < 4000; ++seed) nones += materialize(n, seed).isNone();
  EXPECT_NEAR(nones / 4000.0, 0.3, 0.03);
  Node never = input("{type: optional, elem: {type: scalar, kind: int}}");
  for (uint64_t seed = 0; seed < 100; ++seed) EXPECT_FALSE(materialize(never, seed).isNone());
  Node always = input("{type: optional, p_none: 1, elem: {type: scalar, kind: int}}");
  EXPECT_TRUE(materialize(always, 0).isNone());
}

TEST(Materialize, ConstValues) {
  EXPECT_EQ(materialize(input("{type: const, value: 3}"), 0).toInt(), 3);
  EXPECT_TRUE(materialize(input("{type: const, value: ~}"), 0).isNone());
  EXPECT_EQ(materialize(input("{type: const, value: [1, 2]}"), 0).toIntVector(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(materialize(input("{type: const, value: [1, 2.5]}"), 0).toDoubleVector(), (std::vector<double>{1, 2.5}));
  c10::IValue d = materialize(input("{type: const, value: {a: 1}}"), 0);
  ASSERT_TRUE(d.isGenericDict());
  EXPECT_EQ(d.toGenericDict().at("a").toInt(), 1);
}

TEST(Materialize, SeedsAreStable) {
  // Fixed values: a change here changes every suite's inputs.
  EXPECT_EQ(input_seed(0, "add_vectors", "in[0]"), input_seed(0, "add_vectors", "in[0]"));
  EXPECT_NE(input_seed(0, "add_vectors", "in[0]"), input_seed(0, "add_vectors", "in[1]"));
  EXPECT_NE(input_seed(0, "add_vectors", "in[0]"), input_seed(1, "add_vectors", "in[0]"));
  EXPECT_NE(input_seed(0, "ab", "c"), input_seed(0, "a", "bc"));
  EXPECT_EQ(input_seed(0, "add_vectors", "in[0]"), 12784396254396243594ULL);
  at::Tensor t = sample("{type: tensor, shape: [3], dtype: float64}", 42);
  // The CPU generator (mt19937) with a fixed seed gives the same doubles on any run.
  EXPECT_EQ(t[0].item<double>(), 0x1.58c55b33d44ccp-2);
  EXPECT_EQ(t[1].item<double>(), 0x1.07cd39b3d4b85p-3);
  EXPECT_EQ(t[2].item<double>(), 0x1.e02dcdb63ec41p-3);
}

TEST(Materialize, SameSeedSameBytesWhateverTheSelection) {
  const char* one = "tests:\n  - {id: x, op: aten::relu, in: [{type: tensor, shape: [5], kind: float}]}\n";
  const char* many =
      "tests:\n  - {id: w, op: aten::relu, in: [{type: tensor, shape: [5], kind: float}]}\n"
      "  - {id: x, op: aten::relu, in: [{type: tensor, shape: [5], kind: float}]}\n";
  Suite a = valid(one), b = valid(many);
  at::Tensor ta = materialize_inputs(a.tests[0], 11).args[0].toTensor();
  at::Tensor tb = materialize_inputs(b.tests[1], 11).args[0].toTensor();
  EXPECT_EQ(std::memcmp(ta.data_ptr(), tb.data_ptr(), ta.nbytes()), 0);
  EXPECT_FALSE(ta.equal(materialize_inputs(b.tests[0], 11).args[0].toTensor()));
  EXPECT_FALSE(ta.equal(materialize_inputs(a.tests[0], 12).args[0].toTensor()));
}

TEST(Materialize, CastInput0ToComplex) {
  Suite s = valid(
      "tests:\n  - {id: c, op: aten::fft_fft, in: [{type: tensor, shape: [3, 2], kind: float}], "
      "cast_input0_to_complex: true}\n");
  Inputs in = materialize_inputs(s.tests[0], 0);
  at::Tensor z = in.args[0].toTensor();
  EXPECT_EQ(z.scalar_type(), at::kComplexFloat);
  EXPECT_EQ(z.sizes(), at::IntArrayRef({3}));
  at::Tensor packed = at::tensor({1.0, 2.0, 3.0, 4.0}).reshape({2, 2});
  at::Tensor c = complex_from_packed(packed);
  EXPECT_EQ(at::real(c)[1].item<double>(), 3.0);
  EXPECT_EQ(at::imag(c)[1].item<double>(), 4.0);
  EXPECT_THROW(complex_from_packed(at::ones({2, 3})), std::invalid_argument);
}

}  // namespace
}  // namespace opsfuzz::suite
