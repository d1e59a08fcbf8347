#include "generators/generators.h"
#include "specs/db/db.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <set>

namespace opsfuzz {
namespace {

TEST(VariableGenerator, SpecialsOnlyWhenAdmitted) {
  VariableSpace all(VarType::Float);
  const auto specials = favoured_values(ValueProfile::Special, c10::ScalarType::Float);
  VariableGenerator g(all, ValueProfile::Special, specials);
  const auto& sp = g.favoured();
  auto has = [&](double v) {
    for (double x : sp)
      if ((std::isnan(v) && std::isnan(x)) || (x == v && std::signbit(x) == std::signbit(v))) return true;
    return false;
  };
  EXPECT_TRUE(has(INFINITY) && has(-INFINITY) && has(NAN) && has(-0.0) &&
              has(std::numeric_limits<float>::denorm_min()));
  auto positive = VariableSpace::range(VarType::Float, 1, 5);
  VariableGenerator p(positive, ValueProfile::Special, specials);
  for (double x : p.favoured()) EXPECT_TRUE(positive.contains(x)) << x;
  Rng rng(3);
  for (int i = 0; i < 1000; ++i) {
    double v = p.next(rng);
    EXPECT_GE(v, 1);
    EXPECT_LE(v, 5);
  }
}

TEST(VariableGenerator, BoundaryProfileHitsTheEnds) {
  auto s = VariableSpace::range(VarType::Int, -128, 127);
  VariableGenerator g(s, ValueProfile::Boundary);
  Rng rng(5);
  std::set<double> seen;
  for (int i = 0; i < 500; ++i) seen.insert(g.next(rng));
  EXPECT_TRUE(seen.count(-128) && seen.count(127));
}

// The bulk conversion (built for the widest vectors the processor has) gives each element the
// value the scalar formula does, to the bit: a*b+c fused into one rounding would change some.
TEST(VariableGenerator, BulkWindowValuesAreTheScalarOnes) {
  std::vector<uint32_t> bits(1001);  // not a multiple of any vector width
  Rng rng(3);
  rng.fill32(bits.data(), bits.size());
  bits[0] = 0, bits[1] = 0xffffffffu, bits[2] = 0x80000000u, bits[3] = 0x7fffffffu;
  const double lo = -20.3, width = 40.7;  // with long mantissas, so that a fused product rounds apart
  std::vector<double> doubles(bits.size());
  std::vector<float> floats(bits.size());
  window_values(bits.data(), bits.size(), false, lo, width, 0, doubles.data());
  window_values(bits.data(), bits.size(), false, lo, width, 0, floats.data());
  std::vector<int64_t> longs(bits.size());
  std::vector<uint8_t> bytes(bits.size());
  window_values(bits.data(), bits.size(), true, -20, 0, 41, longs.data());
  window_values(bits.data(), bits.size(), true, 0, 0, 256, bytes.data());
  for (size_t j = 0; j < bits.size(); ++j) {
    volatile double unit = bits[j] * 0x1.0p-32;  // volatile: rounded apart from the sum
    volatile double scaled = width * unit;
    const double expected = lo + scaled;
    ASSERT_EQ(std::bit_cast<uint64_t>(doubles[j]), std::bit_cast<uint64_t>(expected)) << "element " << j;
    ASSERT_EQ(floats[j], static_cast<float>(expected)) << "element " << j;
    ASSERT_EQ(longs[j], -20 + static_cast<int64_t>((uint64_t{bits[j]} * 41) >> 32)) << "element " << j;
    ASSERT_EQ(bytes[j], bits[j] >> 24) << "element " << j;
  }
}

TEST(TensorGenerator, EveryDtypeWithinItsSpace) {
  TensorConfig cfg;
  TensorGenerator gen(cfg);
  Rng rng(11);
  for (auto dt : real_and_complex_dtypes()) {
    TensorMeta m;
    m.dtype = dt;
    m.shape = {3, 4};
    m.values = VariableSpace::range(
        dt == c10::ScalarType::Bool || c10::isIntegralType(dt, false) ? VarType::Int : VarType::Float, 0, 1);
    at::Tensor t = gen.generate(m, rng);
    EXPECT_EQ(t.scalar_type(), dt);
    EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{3, 4}));
    if (!t.is_complex()) {
      auto d = t.to(at::kDouble);
      EXPECT_GE(d.min().item<double>(), 0) << name(dt);
      EXPECT_LE(d.max().item<double>(), 1) << name(dt);
    }
  }
}

// A space's ends that a narrower float cannot hold are rounded inward, not to the nearest value
// (65504, float16's largest, is 65536 in bfloat16; the largest bfloat16 below it is 65280).
TEST(TensorGenerator, NarrowFloatsStayInsideTheSpace) {
  TensorGenerator gen(TensorConfig{});
  TensorMeta m;
  m.dtype = c10::ScalarType::BFloat16;
  m.shape = {4096};
  m.values = VariableSpace::range(VarType::Float, -65504, 65504);
  m.profile = ValueProfile::Boundary;
  Rng rng(1);
  at::Tensor t = gen.generate(m, rng).to(at::kDouble);
  EXPECT_EQ(t.max().item<double>(), 65280);
  EXPECT_EQ(t.min().item<double>(), -65280);
  m.dtype = c10::ScalarType::Half;
  m.values = VariableSpace::range(VarType::Float, 0.1, 0.2);  // neither end is a float16
  t = gen.generate(m, rng).to(at::kDouble);
  EXPECT_GE(t.min().item<double>(), 0.1);
  EXPECT_LE(t.max().item<double>(), 0.2);
}

TEST(TensorGenerator, LayoutsHoldTheSameValues) {
  TensorMeta m;
  m.shape = {2, 3, 4, 5};
  m.values = VariableSpace::range(VarType::Float, -1, 1);
  for (const char* words : {"transposed", "permuted", "strided", "channels_last"}) {
    Config cfg = Config::parse(words);
    Rng a(9), b(9);
    at::Tensor plain = TensorGenerator(TensorConfig{}).generate(m, a);
    at::Tensor laid = TensorGenerator(cfg.tensor).generate(m, b);
    EXPECT_FALSE(laid.is_contiguous()) << words;
    EXPECT_TRUE(at::equal(plain, laid)) << words;
  }
}

TEST(ArgumentGenerator, SchemaTypes) {
  ArgumentGenerator gen(TensorConfig{});
  Rng rng(1);
  MetaArg none;
  none.argtype = ArgType::TensorOpt;
  none.none = true;
  EXPECT_TRUE(gen.generate(none, rng).isNone());
  MetaArg list;
  list.argtype = ArgType::DimList;
  list.value = IntList{0, -1};
  EXPECT_EQ(gen.generate(list, rng).toIntVector(), (std::vector<int64_t>{0, -1}));
  MetaArg floats;
  floats.argtype = ArgType::FloatListOpt;
  floats.value = Floats{0.5, 2};
  c10::IValue f = gen.generate(floats, rng);
  ASSERT_TRUE(f.isDoubleList());  // the typed lists the kernels unbox
  EXPECT_EQ(f.toDoubleVector(), (std::vector<double>{0.5, 2}));
  MetaArg bools;
  bools.argtype = ArgType::BoolList;
  bools.value = Bools{true, false, true};
  c10::IValue b = gen.generate(bools, rng);
  ASSERT_TRUE(b.isBoolList());
  EXPECT_EQ(b.toBoolList().vec(), (std::vector<bool>{true, false, true}));
  MetaArg scalar;
  scalar.argtype = ArgType::Scalar;
  scalar.scalar_dtype = ScalarDtype::Float;
  scalar.value = 2.5;
  EXPECT_TRUE(gen.generate(scalar, rng).isDouble());
  scalar.scalar_dtype = ScalarDtype::Int;
  scalar.value = int64_t{3};
  EXPECT_EQ(gen.generate(scalar, rng).toInt(), 3);
  MetaArg dtype;
  dtype.argtype = ArgType::ScalarType;
  dtype.value = c10::ScalarType::Half;
  EXPECT_EQ(gen.generate(dtype, rng).toScalarType(), c10::ScalarType::Half);
  MetaArg layout;
  layout.argtype = ArgType::LayoutOpt;
  layout.value = c10::Layout::Strided;
  EXPECT_EQ(gen.generate(layout, rng).toLayout(), c10::Layout::Strided);
  MetaArg device;
  device.argtype = ArgType::Device;
  device.value = c10::DeviceType::CPU;
  EXPECT_EQ(gen.generate(device, rng).toDevice(), c10::Device(c10::kCPU));
  MetaArg opt_list;
  opt_list.argtype = ArgType::TensorOptList;
  opt_list.tensors.resize(2);
  opt_list.tensors[0].none = true;
  opt_list.tensors[1].shape = {2};
  auto v = gen.generate(opt_list, rng).toList();
  EXPECT_TRUE(v.get(0).isNone());
  EXPECT_TRUE(v.get(1).isTensor());
}

std::vector<Sample> take(const Spec& spec, uint64_t seed, size_t n, Validity v = Validity::Valid) {
  ArgumentTupleGenerator gen(spec, Config{}, seed, v);
  std::vector<Sample> out;
  Sample s;
  while (out.size() < n && gen.next(s)) out.push_back(s);
  return out;
}

// Each entry of a tensor list holds values of its own space: an integral entry before the last
// one once drew from the float space of the list's last entry (not solved yet), as floats cast
// to its dtype (found by solver_fuzz under UBSan: -4.95 cast to uint8 in cat.default, seed
// 50577534877696, sample 1, which held 252).
TEST(ArgumentTupleGenerator, TensorListEntriesHoldValuesOfTheirOwnSpace) {
  size_t entries = 0;
  auto check = [&](const Sample& s) {
    const c10::List<at::Tensor> list = s.args.at(0).toTensorList();
    const MetaArg& m = s.metas.at(0);
    for (size_t e = 0; e < list.size(); ++e, ++entries) {
      const TensorMeta& t = m.tensors.at(e);
      ASSERT_EQ(t.values.type(), tensor_value_space(t.dtype).type()) << s.op << " #" << s.index << " entry " << e;
      for (double v : tensor_elements(list.get(e)))
        ASSERT_TRUE(t.values.contains(v))
            << s.op << " #" << s.index << " entry " << e << ": " << v << " not in " << t.values.to_string();
    }
  };
  for (const char* op : {"cat.default", "stack.default"})
    for (const Sample& s : take(*find_spec(op), 7, 100)) check(s);
  check(take(*find_spec("cat.default"), 50577534877696, 2).back());
  EXPECT_GT(entries, 200u);
}

// The values each value configuration brings into tensors: counts of elements equal to `v` over
// the tensors of `dtype` in 300 valid samples of `op`.
int64_t count_values(const char* op, const char* config, c10::ScalarType dtype, double v) {
  ArgumentTupleGenerator gen(*find_spec(op), Config::parse(config), 0, Validity::Valid);
  Sample s;
  int64_t n = 0;
  for (int i = 0; i < 300 && gen.next(s); ++i)
    for (const auto& a : s.args)
      if (a.isTensor() && a.toTensor().scalar_type() == dtype) {
        at::Tensor d = a.toTensor().to(at::kDouble);
        n += (std::isnan(v) ? d.isnan() : d.eq(v)).sum().item<int64_t>();
      }
  return n;
}

TEST(ValueConfigs, BringTheirValuesIntoTensors) {
  using S = c10::ScalarType;
  const double inf = std::numeric_limits<double>::infinity();
  const double exp_edge = std::log(static_cast<double>(std::numeric_limits<float>::max()));
  for (double v : {-inf, std::nan(""), static_cast<double>(std::numeric_limits<float>::denorm_min())})
    EXPECT_GT(count_values("add.Tensor", "extremes", S::Float, v), 0) << v;
  for (double v : {static_cast<double>(std::numeric_limits<float>::max()),
                   static_cast<double>(static_cast<float>(exp_edge + 0.01))}) {
    EXPECT_GT(count_values("add.Tensor", "extremes", S::Float, v), 0) << v;
    EXPECT_EQ(count_values("add.Tensor", "", S::Float, v), 0) << v;  // not among the default profiles' values
  }
  EXPECT_GT(count_values("add.Tensor", "extremes,half", S::Half, 65504), 0);
  for (double v : {2.5, -0.5, 8388607.5, 8388608.0}) {
    EXPECT_GT(count_values("add.Tensor", "rounding", S::Float, v), 0) << v;
    EXPECT_EQ(count_values("add.Tensor", "", S::Float, v), 0) << v;
  }
  for (double v : {-128.0, 127.0, -1.0}) EXPECT_GT(count_values("add.Tensor", "integral", S::Char, v), 0) << v;
  EXPECT_GT(count_values("add.Tensor", "integral", S::Long, -9223372036854775808.0), 0);
  // A spec's value rules hold: integer divisors are never zero.
  ArgumentTupleGenerator gen(*find_spec("fmod.Tensor"), Config::parse("integral"), 0, Validity::Valid);
  Sample s;
  for (int i = 0; i < 300 && gen.next(s); ++i) {
    at::Tensor self = s.args[0].toTensor(), other = s.args[1].toTensor();
    if (self.numel() && other.numel() &&
        c10::isIntegralType(c10::promoteTypes(self.scalar_type(), other.scalar_type()), true))
      EXPECT_FALSE(other.eq(0).any().item<bool>()) << "#" << s.index;
  }
}

// A deviation on a tensor's values is hit where the values fall into it, and only there.
TEST(ValueConfigs, ValueDeviationsAreRecordedOnTheSamplesThatHitThem) {
  const char* id = "fmod.lowest_dividend_by_minus_one";
  ArgumentTupleGenerator gen(*find_spec("fmod.Tensor"), Config::parse("contract,integral"), 0, Validity::Valid);
  Sample s;
  int hits = 0;
  for (int i = 0; i < 500 && gen.next(s); ++i) {
    at::Tensor self = s.args[0].toTensor();
    bool lowest = (self.scalar_type() == at::kInt && self.eq(std::numeric_limits<int32_t>::min()).any().item<bool>()) ||
                  (self.scalar_type() == at::kLong && self.eq(std::numeric_limits<int64_t>::min()).any().item<bool>());
    bool hit = std::find(s.deviations.begin(), s.deviations.end(), id) != s.deviations.end();
    EXPECT_EQ(hit, lowest) << "#" << s.index;
    hits += hit;
  }
  EXPECT_GT(hits, 0);
}

TEST(ArgumentTupleGenerator, SameSeedSameSamplesOtherSeedOtherValues) {
  const Spec& spec = *find_spec("add.Tensor");
  auto a = take(spec, 7, 50), b = take(spec, 7, 50), c = take(spec, 8, 50);
  ASSERT_EQ(a.size(), 50u);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, i);
    EXPECT_TRUE(at::equal(a[i].args[0].toTensor(), b[i].args[0].toTensor()));
    EXPECT_TRUE(at::equal(a[i].args[1].toTensor(), b[i].args[1].toTensor()));
    auto x = a[i].args[0].toTensor(), y = c[i].args[0].toTensor();
    differs |= x.sizes() != y.sizes() || x.scalar_type() != y.scalar_type() || !at::equal(x, y);
  }
  EXPECT_TRUE(differs);
}

TEST(ArgumentTupleGenerator, RoundsContinuePastThePlan) {
  const Spec& spec = *find_spec("add.Tensor");
  ArgumentTupleGenerator gen(spec, Config{}, 0, Validity::Valid);
  Sample s;
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(gen.next(s));
  EXPECT_GE(gen.stats().rounds, 2u);
  EXPECT_GE(gen.tuples_per_round(), 43u);  // at least FACTO's count for this op
}

// A stream that yields nothing (prod's rules cannot be broken alone within the limits) says so
// on every call, and does not spin.
TEST(ArgumentTupleGenerator, AnEmptyStreamStaysEmpty) {
  ArgumentTupleGenerator gen(*find_spec("prod.default"), Config{}, 0, Validity::Invalid);
  Sample s;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(gen.next(s));
}

TEST(ArgumentTupleGenerator, OutTensorsWhenAsked) {
  const Spec& spec = *find_spec("add.Tensor");
  ArgumentTupleGenerator gen(spec, Config{}, 0, Validity::Valid, true);
  Sample s;
  ASSERT_TRUE(gen.next(s));
  ASSERT_EQ(s.outs.size(), 1u);
  EXPECT_EQ(s.outs[0].first, "out");
  EXPECT_EQ(s.outs[0].second.toTensor().scalar_type(),
            c10::promoteTypes(s.args[0].toTensor().scalar_type(), s.args[1].toTensor().scalar_type()));
}

}  // namespace
}  // namespace opsfuzz
