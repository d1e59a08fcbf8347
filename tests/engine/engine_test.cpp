#include "engine/engine.h"
#include "specs/model/relations.h"

#include <gtest/gtest.h>

#include <set>

namespace opsfuzz {
namespace {
using namespace dsl;

MetaTuple solve_one(const Spec& spec, const Task& task, int variant, uint64_t seed, MetaArgTupleEngine& engine) {
  MetaTuple t;
  Rng rng(seed);
  for (int attempt = 0; attempt < 16; ++attempt)
    if (engine.solve(task, variant, rng, nullptr, t)) return t;
  ADD_FAILURE() << "no tuple for " << engine.describe(task) << ": " << engine.dead_end().describe(spec);
  return t;
}

TEST(SolveOrder, DependenciesFirst) {
  Spec s("t.order");
  s.in(Dim("dim").deps("self")).in(Tensor("self"));
  EXPECT_EQ(solve_order(s), (std::vector<int>{1, 0}));
}

TEST(SolveOrder, CycleAndUnknownNameNameSpecAndArgument) {
  Spec cyc("t.cycle");
  cyc.in(Tensor("a").deps("b")).in(Tensor("b").deps("a"));
  try {
    solve_order(cyc);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t.cycle"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos);
  }
  Spec bad("t.bad");
  bad.in(Tensor("self")).in(Dim("dim").deps("slef"));
  try {
    bad.check();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "t.bad: argument 'dim' depends on unknown argument 'slef'");
  }
}

TEST(SpecCheck, MisspeltNamesInJointTermsAndConstraintsAreErrorsNamingTheSpec) {
  Spec joint("t.joint");
  joint.in(Int("a")).in(Int("b")).joint("a + b == 5", value("a") + value("bb") == 5);
  try {
    joint.check();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "t.joint: joint constraint 'a + b == 5' names unknown argument 'bb'");
  }
  // A constraint function reading an argument that is not among its dependencies.
  Spec reads("t.reads");
  reads.in(Tensor("self")).in(Dim("dim").deps("self").value(Le("slef.rank", [](const Ctx& c) {
    return c.rank("slef");
  })));
  reads.check();  // names inside functions are resolved when they run
  MetaArgTupleEngine engine(reads, Config{});
  MetaTuple t;
  Rng rng(1);
  try {
    engine.solve({1, Attribute::Value, -1}, 0, rng, nullptr, t);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("t.reads"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reads 'slef', which is not among its dependencies"), std::string::npos)
        << e.what();
  }
}

TEST(SpecLabels, ReadAsSentencesAboutNamedArguments) {
  Spec s("t.labels");
  s.in(Tensor("input").rank(Be(3, 5)))
      .in(Dim("dim").deps("input").value(dim_of("input")))
      .in(Tensor("weight").deps("input").rank(Eq("input.rank", [](const Ctx& c) { return c.rank("input"); })))
      .in(ScalarOpt("min"))
      .in(ScalarOpt("max").optional(Eq(false)))
      .in(TensorList("tensors").length(Ge(1)).size(Ge(1)));
  auto label = [&](int arg, size_t k = 0) { return s.args()[static_cast<size_t>(arg)].constraints.at(k).label; };
  EXPECT_EQ(label(0), "input.rank in [3, 5]");
  EXPECT_EQ(label(1), "dim in [-input.rank, input.rank)");
  EXPECT_EQ(label(2), "weight.rank == input.rank");
  EXPECT_EQ(label(4), "max is not None");
  EXPECT_EQ(label(5, 0), "len(tensors) >= 1");
  EXPECT_EQ(label(5, 1), "tensors[i].size(d) >= 1");
}

TEST(AttributeEngine, AppliesConstraintsAndNegatesOne) {
  Config cfg;
  AttributeEngine ae(cfg);
  ArgSpec arg = Dim("dim").value(Ge(-2)).value(Lt(3));
  std::vector<MetaArg> metas;
  MetaArg self;
  Ctx ctx(nullptr, arg, metas, self);
  bool negated = false;
  VariableSpace buffer;
  auto valid = ae.solve(arg, Attribute::Value, ctx, -1, negated, buffer);
  EXPECT_FALSE(negated);
  EXPECT_EQ(valid.min(), -2);
  EXPECT_EQ(valid.max(), 2);
  auto invalid = ae.solve(arg, Attribute::Value, ctx, 1, negated, buffer);  // not (dim < 3)
  EXPECT_TRUE(negated);
  EXPECT_EQ(invalid.min(), 3);
  EXPECT_EQ(invalid.max(), cfg.limits.int_hi);
  EXPECT_EQ(ae.solve(arg, Attribute::Value, ctx, -1, negated, buffer), valid);  // the kept space
  EXPECT_FALSE(negated);
}

// The arguments' metas of a spec whose first argument is the tensor `self` (its shape is set by
// the test).
std::vector<MetaArg> with_self_tensor(size_t args) {
  std::vector<MetaArg> metas(args);
  metas[0].argtype = ArgType::Tensor;
  metas[0].tensors.resize(1);
  return metas;
}

// A space whose constraint reads the context follows it; a constant one is kept.
TEST(AttributeEngine, ResolvesSpacesThatReadTheContext) {
  Config cfg;
  AttributeEngine ae(cfg);
  ArgSpec arg =
      Dim("dim").deps("self").value(Ge(0)).value(Lt("self.rank", [](const Ctx& c) { return c.rank("self"); }));
  Spec spec("x");
  spec.in(Tensor("self")).in(arg);
  std::vector<MetaArg> metas = with_self_tensor(2);
  MetaArg self;
  VariableSpace buffer;
  bool negated = false;
  for (int64_t rank : {2, 5}) {
    metas[0].tensors[0].shape.assign(static_cast<size_t>(rank), 1);
    Ctx ctx(&spec, spec.args()[1], metas, self);
    const VariableSpace& s = ae.solve(spec.args()[1], Attribute::Value, ctx, -1, negated, buffer);
    EXPECT_EQ(&s, &buffer);
    EXPECT_EQ(s.max(), rank - 1);
  }
  ArgSpec fixed = Dim("d").value(Ge(0));
  Ctx ctx(nullptr, fixed, metas, self);
  const VariableSpace* first = &ae.solve(fixed, Attribute::Value, ctx, -1, negated, buffer);
  EXPECT_NE(first, &buffer);
  EXPECT_EQ(&ae.solve(fixed, Attribute::Value, ctx, -1, negated, buffer), first);
}

// A space solved from the context is given again where its constraints' reads give the same
// values (rank 2, then 5, then 2 again), and only there: a read of a whole shape is not kept.
TEST(AttributeEngine, RecallsASpaceOnlyWhereItsReadsRepeat) {
  Config cfg;
  AttributeEngine ae(cfg);
  Spec spec("x");
  spec.in(Tensor("self"))
      .in(Dim("dim").deps("self").value(Lt("self.rank", [](const Ctx& c) { return c.rank("self"); })))
      .in(Int("n").deps("self").value(Le("the sum of self's sizes", [](const Ctx& c) {
        int64_t sum = 0;
        for (int64_t s : c.shape("self")) sum += s;
        return sum;
      })));
  std::vector<MetaArg> metas = with_self_tensor(3);
  MetaArg self;
  VariableSpace buffer;
  bool negated = false;
  for (auto [rank, size] : std::vector<std::pair<int64_t, int64_t>>{{2, 1}, {5, 1}, {2, 1}, {2, 3}, {5, 2}}) {
    metas[0].tensors[0].shape.assign(static_cast<size_t>(rank), size);
    Ctx ctx(&spec, spec.args()[1], metas, self);
    EXPECT_EQ(ae.solve(spec.args()[1], Attribute::Value, ctx, -1, negated, buffer).max(), rank - 1);
    Ctx whole(&spec, spec.args()[2], metas, self);
    EXPECT_EQ(ae.solve(spec.args()[2], Attribute::Value, whole, -1, negated, buffer).max(), rank * size);
  }
  CtxReads reads;
  Ctx ctx(&spec, spec.args()[1], metas, self);
  ctx.record(&reads);
  ctx.size("self", -1);
  ctx.record(nullptr);
  EXPECT_TRUE(ctx.gives(reads));
  metas[0].tensors[0].shape.back() = 7;
  EXPECT_FALSE(ctx.gives(reads));
  metas[0].tensors[0].shape.clear();  // the dim read is past the rank now
  EXPECT_FALSE(ctx.gives(reads));
}

TEST(AttributeEngine, CandidatesStartWithTheBoundaries) {
  Config cfg;
  AttributeEngine ae(cfg);
  Rng rng(1);
  auto c = ae.candidates(VariableSpace::range(VarType::Int, 1, 8), 6, rng);
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(c[0], Value(int64_t{1}));
  EXPECT_EQ(c[1], Value(int64_t{8}));
  std::set<Value> distinct(c.begin(), c.end());
  EXPECT_EQ(distinct.size(), 6u);
  auto small = ae.candidates(VariableSpace::range(VarType::Int, 0, 2), 6, rng);
  EXPECT_EQ(small, (std::vector<Value>{int64_t{0}, int64_t{2}, int64_t{1}}));
}

TEST(MetaArgTupleEngine, DtypeFocusEnumeratesEveryAdmissibleDtype) {
  Spec s("t.dtypes");
  s.in(Tensor("self").dtype(NotIn(std::vector{c10::ScalarType::Bool})));
  Config cfg;
  MetaArgTupleEngine engine(s, cfg);
  Task task{0, Attribute::Dtype, -1};
  auto first = solve_one(s, task, 0, 1, engine);
  EXPECT_EQ(first.variants, cfg.limits.tuples_per_focus);  // 7 dtypes, cycled up to 8 tuples
  std::set<c10::ScalarType> seen;
  for (int v = 0; v < first.variants; ++v) seen.insert(solve_one(s, task, v, 1, engine).metas[0].tensor().dtype);
  EXPECT_EQ(seen.size(), 7u);  // 5 integral + float32 + float64; half is off by default
  EXPECT_FALSE(seen.count(c10::ScalarType::Bool));
}

TEST(MetaArgTupleEngine, DependentArgumentsSeeTheirDependencies) {
  Spec s("t.deps");
  s.in(Tensor("self").rank(Ge(1))).in(Dim("dim").deps("self").value(dim_of("self")));
  Config cfg;
  MetaArgTupleEngine engine(s, cfg);
  for (uint64_t seed = 0; seed < 200; ++seed) {
    auto t = solve_one(s, {1, Attribute::Value, -1}, static_cast<int>(seed % 6), seed, engine);
    int64_t rank = static_cast<int64_t>(t.metas[0].tensor().shape.size());
    int64_t dim = std::get<int64_t>(t.metas[1].value);
    EXPECT_GE(dim, -rank);
    EXPECT_LT(dim, rank);
    for (int64_t size : t.metas[0].tensor().shape) {
      EXPECT_GE(size, 1);
      EXPECT_LE(size, cfg.limits.max_size);
    }
  }
}

TEST(MetaArgTupleEngine, InvalidTupleViolatesExactlyTheNamedConstraint) {
  Spec s("t.invalid");
  s.in(Tensor("self").rank(Ge(1))).in(Dim("dim").deps("self").value(dim_of("self")));
  Config cfg;
  MetaArgTupleEngine engine(s, cfg);
  auto tasks = engine.invalid_tasks();
  ASSERT_EQ(tasks.size(), 2u);
  auto t = solve_one(s, tasks[1], 0, 3, engine);
  EXPECT_EQ(t.violated, "dim in [-self.rank, self.rank)");
  int64_t rank = static_cast<int64_t>(t.metas[0].tensor().shape.size());
  int64_t dim = std::get<int64_t>(t.metas[1].value);
  EXPECT_TRUE(dim < -rank || dim >= rank) << dim << " rank " << rank;
  EXPECT_GE(rank, 1);  // the other constraint still holds
}

TEST(MetaArgTupleEngine, PerElementConstraintsSeeThePartialList) {
  Spec s("t.sum");
  s.in(LengthList("sizes").length(Eq(4)).value(Be(0, expr("5 - the sum of the earlier entries", [](const Ctx& c) {
                                                    int64_t used = 0;
                                                    for (auto v : c.solved()) used += v;
                                                    return 5 - used;
                                                  }))));
  Config cfg;
  MetaArgTupleEngine engine(s, cfg);
  for (uint64_t seed = 0; seed < 100; ++seed) {
    auto t = solve_one(s, {0, Attribute::Value, -1}, 0, seed, engine);
    int64_t sum = 0;
    for (auto v : std::get<IntList>(t.metas[0].value)) {
      sum += v;
      EXPECT_GE(v, 0);
    }
    EXPECT_LE(sum, 5);
  }
}

TEST(MetaArgTupleEngine, FloatAndBoolListsHaveALengthAndOneValuePerEntry) {
  Spec s("t.lists");
  s.in(Tensor("input").rank(Be(3, 4)))
      .in(FloatListOpt("scales")
              .deps("input")
              .length(Eq("input.rank - 2", [](const Ctx& c) { return c.rank("input") - 2; }))
              .value(Be(0.5, 2)))
      .in(BoolList("mask").length(Eq(3)));
  EXPECT_EQ(s.args()[1].constraints[0].label, "len(scales) == input.rank - 2");
  EXPECT_EQ(s.args()[1].constraints[1].label, "scales[i] in [0.5, 2]");
  MetaArgTupleEngine engine(s, Config{});
  std::set<bool> masks, nones;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    auto t = solve_one(s, {1, Attribute::Optional, -1}, static_cast<int>(seed % 2), seed, engine);
    nones.insert(t.metas[1].none);
    if (!t.metas[1].none) {
      const auto& scales = std::get<Floats>(t.metas[1].value);
      EXPECT_EQ(static_cast<int64_t>(scales.size()), static_cast<int64_t>(t.metas[0].tensor().shape.size()) - 2);
      for (double x : scales) EXPECT_TRUE(x >= 0.5 && x <= 2) << x;
    }
    const auto& mask = std::get<Bools>(t.metas[2].value);
    ASSERT_EQ(mask.size(), 3u);
    masks.insert(mask.begin(), mask.end());
  }
  EXPECT_EQ(nones.size(), 2u);
  EXPECT_EQ(masks.size(), 2u);
  auto tasks = engine.invalid_tasks();  // input.rank, len(scales), scales[i], len(mask)
  ASSERT_EQ(tasks.size(), 4u);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto bad = solve_one(s, tasks[2], 0, seed, engine);
    EXPECT_EQ(bad.violated, "scales[i] in [0.5, 2]");
    const auto& scales = std::get<Floats>(bad.metas[1].value);
    EXPECT_TRUE(std::any_of(scales.begin(), scales.end(), [](double x) { return !(x >= 0.5 && x <= 2); }));
    auto short_mask = solve_one(s, tasks[3], 0, seed, engine);
    EXPECT_NE(std::get<Bools>(short_mask.metas[2].value).size(), 3u);
  }
}

TEST(MetaArgTupleEngine, UnsatisfiableSpaceNamesOpArgumentAndConstraints) {
  Spec s("t.unsat");
  s.in(Tensor("self").rank(Ge(3)).rank(Le(2)));
  Config cfg;
  MetaArgTupleEngine engine(s, cfg);
  MetaTuple t;
  Rng rng(0);
  EXPECT_FALSE(engine.solve({0, Attribute::Rank, -1}, 0, rng, nullptr, t));
  std::string why = engine.dead_end().describe(s);
  EXPECT_NE(why.find("t.unsat"), std::string::npos) << why;
  EXPECT_NE(why.find("'self'"), std::string::npos) << why;
  EXPECT_NE(why.find("Rank"), std::string::npos) << why;
  EXPECT_NE(why.find("self.rank >= 3"), std::string::npos) << why;
  EXPECT_NE(why.find("self.rank <= 2"), std::string::npos) << why;
}

// An invalid tuple that cannot break its constraint says so: no value violates it.
TEST(MetaArgTupleEngine, UnviolatableConstraintNamesTheConstraintToViolate) {
  Spec s("t.empty");
  s.in(Tensor("self").rank(Eq(1)).size(Eq(0)).value(Ge(0)));
  Config cfg = Config::parse("empty");  // sizes may be 0
  MetaArgTupleEngine engine(s, cfg);
  auto tasks = engine.invalid_tasks();
  auto value = std::find_if(tasks.begin(), tasks.end(), [](const Task& t) { return t.attribute == Attribute::Value; });
  ASSERT_NE(value, tasks.end());
  MetaTuple t;
  Rng rng(0);
  EXPECT_FALSE(engine.solve(*value, 0, rng, nullptr, t));
  EXPECT_EQ(engine.dead_end().cause(s),
            "argument 'self', attribute Value: no value violates a value rule, on a tensor with no elements");
}

// A constant dtype rule that only dtypes outside the configuration break is no invalid task: it
// could only dead-end. Under the configuration that adds them, it is one.
TEST(MetaArgTupleEngine, DtypeRulesOnlyExcludedDtypesBreakAreNoTasks) {
  Spec s("t.real");
  s.in(Tensor("self")
           .dtype(NotIn(std::vector{c10::ScalarType::ComplexFloat, c10::ScalarType::ComplexDouble}))
           .rank(Le(3)));
  auto labels = [&](const char* words) {
    MetaArgTupleEngine engine(s, Config::parse(words));
    std::vector<std::string> out;
    for (const Task& t : engine.invalid_tasks()) out.push_back(s.args()[t.arg].constraints[t.constraint].label);
    return out;
  };
  EXPECT_EQ(labels(""), std::vector<std::string>{"self.rank <= 3"});
  EXPECT_EQ(labels("complex"),
            (std::vector<std::string>{"self.dtype not in {complex64, complex128}", "self.rank <= 3"}));
}

TEST(MetaArgTupleEngine, ScopeConstraintsAreNeverNegated) {
  Spec s("t.scope");
  s.in(Bool("flag").value(Scope(Eq(false))));
  Config cfg;
  MetaArgTupleEngine engine(s, cfg);
  EXPECT_TRUE(engine.invalid_tasks().empty());
  EXPECT_EQ(engine.valid_tasks().size(), 1u);
}

TEST(MetaArgTupleEngine, LayoutAndDeviceValues) {
  Spec s("t.device");
  s.in(LayoutOpt("layout").value(Eq(c10::Layout::Strided))).in(Device("device").value(Eq(c10::DeviceType::CPU)));
  Config cfg;
  MetaArgTupleEngine engine(s, cfg);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto t = solve_one(s, {1, Attribute::Value, -1}, static_cast<int>(seed % 6), seed, engine);
    EXPECT_TRUE(t.metas[0].none || std::get<c10::Layout>(t.metas[0].value) == c10::Layout::Strided);
    EXPECT_EQ(std::get<c10::DeviceType>(t.metas[1].value), c10::DeviceType::CPU);
  }
  auto tasks = engine.invalid_tasks();
  ASSERT_EQ(tasks.size(), 2u);
  auto t = solve_one(s, tasks[1], 0, 3, engine);
  EXPECT_EQ(t.violated, "device == cpu");
  EXPECT_EQ(std::get<c10::DeviceType>(t.metas[1].value), c10::DeviceType::CUDA);
}

TEST(Config, ParsesWordsAndRejectsUnknownOnes) {
  auto cfg = Config::parse("half,empty,nozerodim,channels_last");
  EXPECT_TRUE(cfg.tensor.half);
  EXPECT_TRUE(cfg.tensor.empty);
  EXPECT_FALSE(cfg.tensor.zero_dim);
  EXPECT_TRUE(cfg.tensor.channels_last);
  EXPECT_TRUE(cfg.tensor.allows(c10::ScalarType::Half));
  EXPECT_FALSE(Config().tensor.allows(c10::ScalarType::BFloat16));
  EXPECT_THROW(Config::parse("wide"), std::invalid_argument);
}

}  // namespace
}  // namespace opsfuzz
