// Joint constraints: term evaluation, forward checking, look-ahead with Z3, negation, and the
// sampling fallback.
#include "engine/engine.h"
#include "specs/model/relations.h"

#include <gtest/gtest.h>

#include <numeric>

namespace opsfuzz {
namespace {
using namespace dsl;

#define SKIP_WITHOUT_Z3() \
  if (!have_z3()) GTEST_SKIP() << "built without Z3 (OPSFUZZ_WITH_Z3=OFF): joint constraints are sampled"

int64_t sum_of(const MetaArg& m) {
  const auto& l = std::get<IntList>(m.value);
  return std::accumulate(l.begin(), l.end(), int64_t{0});
}

// Four entries in [0, 9] that sum to 3: drawn one at a time, the early entries often overshoot.
Spec tight_sum() {
  Spec s("t.tight_sum");
  s.in(LengthList("parts").length(Eq(4)))
      .joint("parts non-negative", all_entries("parts", [](Term p) { return p >= 0; }))
      .joint("parts sum to 3", sum(elems("parts")) == 3);
  return s;
}

struct Run {
  int dead_ends = 0;
  std::vector<MetaTuple> tuples;
};

Run run(const Spec& spec, Config cfg, const Task& task, int n, uint64_t seed = 1) {
  MetaArgTupleEngine engine(spec, cfg);
  Run r;
  Rng rng(seed);
  while (static_cast<int>(r.tuples.size()) < n) {
    MetaTuple t;
    if (engine.solve(task, 0, rng, nullptr, t)) r.tuples.push_back(std::move(t));
    else if (++r.dead_ends > 100 * n) break;
  }
  return r;
}

Config with(JointStrategy j) {
  Config cfg;
  cfg.joint = j;
  return cfg;
}

// A spec's joint problem, with an assignment that knows no slot yet.
struct Problem {
  explicit Problem(const Spec& s) : attrs(cfg), p(s, cfg, attrs) { a.reset(static_cast<size_t>(p.slot_count())); }
  Config cfg;
  AttributeEngine attrs;
  JointProblem p;
  Assignment a;
};

TEST(Term, EvaluatesLikePythonAndPartially) {
  Spec s("t.eval");
  s.in(Int("a")).in(Int("b")).joint("uses a and b", value("a") + value("b") >= 0);
  Problem problem(s);
  JointProblem& p = problem.p;
  Assignment& a = problem.a;
  EXPECT_EQ(p.eval(Term(-7) / 2, a), -4);
  EXPECT_EQ(p.eval(Term(-7) % 2, a), 1);
  EXPECT_EQ(p.eval(Term(7) % -2, a), -1);
  EXPECT_EQ(p.eval(Term(7) / 0, a), std::nullopt);
  EXPECT_EQ(p.eval(ite(Term(3) > 2, 10, 20), a), 10);
  Term x = value("a"), y = value("b");
  EXPECT_EQ(p.eval(x + y, a), std::nullopt);  // both unknown
  EXPECT_EQ(p.eval(x * 0 == 0, a), 1);        // decided without x
  EXPECT_EQ(p.eval((x > 1) && (Term(1) > 2), a), 0);
  EXPECT_EQ(p.eval((x > 1) || (Term(3) > 2), a), 1);
  a.set(p.slot(JointAttr::Value, 0, -1), 4);
  EXPECT_EQ(p.eval(x * x - 1, a), 15);
  EXPECT_EQ(p.eval(x + y, a), std::nullopt);
  EXPECT_EQ(p.slot(JointAttr::Rank, 0, -1), -1);  // read by no constraint
}

TEST(Term, FoldsRunOverTheRankOrLength) {
  Spec s("t.folds");
  s.in(Tensor("self")).in(LengthList("l")).joint("reads both", numel("self") == sum(elems("l")));
  Problem problem(s);
  JointProblem& p = problem.p;
  Assignment& a = problem.a;
  a.set(p.slot(JointAttr::Rank, 0, -1), 3);
  for (int64_t d = 0; d < 3; ++d) a.set(p.slot(JointAttr::Size, 0, d), d + 2);  // [2, 3, 4]
  EXPECT_EQ(p.eval(numel("self"), a), 24);
  EXPECT_EQ(p.eval(size("self", -1), a), 4);                     // negative dims count from the end
  EXPECT_EQ(p.eval(size("self", value("l")), a), std::nullopt);  // a computed dim that is unknown
  a.set(p.slot(JointAttr::Length, 1, -1), 2);
  a.set(p.slot(JointAttr::Elem, 1, 0), 20);
  EXPECT_EQ(p.eval(sum(elems("l")), a), std::nullopt);  // entry 1 unknown
  a.set(p.slot(JointAttr::Elem, 1, 1), 4);
  EXPECT_EQ(p.eval(p.program(0), a), 1);
  EXPECT_EQ(p.eval(all(dims("self", 1), [](int64_t d) { return size("self", d) >= 3; }), a), 1);
  EXPECT_EQ(p.eval(any(dims("self"), [](int64_t d) { return size("self", d) == 5; }), a), 0);
}

// With congruences, an equation is decided as soon as its sides can share no value: a product of
// sizes with an entry that does not divide the numel fails before the other entries are known.
TEST(Term, CongruencesDecideEquationsEarly) {
  Spec s("t.congruent");
  s.in(Tensor("self"))
      .in(Shape("size"))
      .in(Int("y"))
      .joint("numel is the product", numel("self") == prod(elems("size")));
  Problem problem(s);
  JointProblem& p = problem.p;
  Assignment& a = problem.a;
  a.set(p.raw_slot(JointAttr::Rank, 0, -1), 2);
  a.set(p.raw_slot(JointAttr::Size, 0, 0), 3);
  a.set(p.raw_slot(JointAttr::Size, 0, 1), 4);  // numel 12
  a.set(p.raw_slot(JointAttr::Length, 1, -1), 3);
  auto congruent = [&](const Program& program) {
    Evaluations e;
    e.add(program, true);
    e.run(0, p, program, a);
    return e.result(0);
  };
  auto congruent_term = [&](const Term& t) { return congruent(p.compile(t)); };
  auto entry = [](int64_t i) { return elem("size", i); };
  Term inferred = any(elems("size"), [=](int64_t i) { return entry(i) == -1; });
  Term known = prod(elems("size"), [=](int64_t i) { return ite(entry(i) == -1, 1, entry(i)); });
  Term view = ite(inferred, known >= 1 && numel("self") % known == 0, known == numel("self"));
  a.set(p.raw_slot(JointAttr::Elem, 1, 0), 5);
  EXPECT_EQ(p.eval(p.program(0), a), std::nullopt);  // plain: the other entries are unknown
  EXPECT_EQ(congruent(p.program(0)), 0);
  EXPECT_EQ(congruent_term(view), 0);  // 5 divides no completion's product, with or without a -1
  a.set(p.raw_slot(JointAttr::Elem, 1, 0), 2);
  EXPECT_EQ(congruent_term(view), std::nullopt);  // 2 * 6 * 1 completes it
  EXPECT_EQ(congruent(p.program(0)), std::nullopt);
  Term y = value("y");
  EXPECT_EQ(congruent_term(y * 2 != 7), 1);               // an even number is never 7
  EXPECT_EQ(congruent_term(y * 2 + 1 == 8), 0);           // nor is an odd one 8
  EXPECT_EQ(congruent_term(Term(12) % (y * 5) == 0), 0);  // 12 is no multiple of a multiple of 5
  EXPECT_EQ(congruent_term(y * 3 == 12), std::nullopt);
  EXPECT_EQ(congruent_term(ite(y > 0, y * 4, y * 6 + 2) == 5), 0);  // both branches even
}

TEST(JointConstraints, UnknownArgumentNamesTheSpec) {
  Spec s("t.bad_joint");
  s.in(Int("a")).joint("names argument c", value("c") == 1);
  Config cfg;
  try {
    MetaArgTupleEngine engine(s, cfg);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "t.bad_joint: a joint constraint names unknown argument 'c'");
  }
}

TEST(JointConstraints, ForwardCheckingSettlesTheLastVariable) {
  Spec s("t.pair");
  s.in(Int("a").value(Be(0, 5))).in(Int("b").deps("a")).joint("a + b == 5", value("a") + value("b") == 5);
  auto r = run(s, with(JointStrategy::Sampling), {1, Attribute::Value, -1}, 200);
  EXPECT_EQ(r.dead_ends, 0);  // b's space is narrowed to 5 - a before it is drawn
  for (const auto& t : r.tuples) EXPECT_EQ(as_int(t.metas[0].value) + as_int(t.metas[1].value), 5);
}

TEST(JointConstraints, SamplingRetriesWhereZ3LooksAhead) {
  Spec s = tight_sum();
  Task task{0, Attribute::Length, -1};  // the entries are drawn at random, not focused
  auto sampled = run(s, with(JointStrategy::Sampling), task, 200);
  EXPECT_GT(sampled.dead_ends, 0);
  for (const auto& t : sampled.tuples) EXPECT_EQ(sum_of(t.metas[0]), 3);
  SKIP_WITHOUT_Z3();
  auto solved = run(s, with(JointStrategy::Z3), task, 200);
  EXPECT_EQ(solved.dead_ends, 0);
  std::set<IntList> distinct;
  for (const auto& t : solved.tuples) {
    EXPECT_EQ(sum_of(t.metas[0]), 3);
    for (auto v : std::get<IntList>(t.metas[0].value)) EXPECT_GE(v, 0);
    distinct.insert(std::get<IntList>(t.metas[0].value));
  }
  EXPECT_EQ(distinct.size(), 20u);  // every composition of 3 into 4 parts
}

// The local search completes a drawn value by moving the other slots of the constraint it
// breaks: here only a = 3b + 4 mends it, through `or`, `not`, `==`, `-` and `*`, and no value of a
// in [-20, 20] does for b outside [-8, 5]; no d mends 2d == e for an odd e.
TEST(JointConstraints, LocalSearchMendsAnEquationWhereOneValueCan) {
  SKIP_WITHOUT_Z3();
  Spec s("t.equation");
  s.in(Int("a").value(Be(-20, 20)))
      .in(Int("b").value(Be(-20, 20)))
      .in(Int("c").value(Be(0, 1)))
      .in(Int("d").value(Be(-10, 10)))
      .in(Int("e").value(Be(-20, 20)))
      .joint("a - 3b == 4 when c", !(value("c") > 0) || (value("a") - 3 * value("b") == 4))
      .joint("2d == e", 2 * value("d") == value("e"));
  Problem problem(s);
  JointSolver solver(s, problem.cfg, problem.attrs);
  Rng rng(1);
  solver.begin(Task{0, Attribute::Value, -1}, rng);
  auto slot = [&](int arg) { return solver.slot(arg, ArgType::Int, Attribute::Value, -1); };
  const int b = slot(1), c = slot(2), e = slot(4);
  ASSERT_TRUE(solver.completes(c, 1, rng));  // the tuple's first choice
  solver.fix(c, 1);
  for (int64_t v = -20; v <= 20; ++v) {
    SCOPED_TRACE(v);
    EXPECT_EQ(solver.completes(b, v, rng), v >= -8 && v <= 5);
    EXPECT_EQ(solver.completes(e, v, rng), v % 2 == 0);
  }
  EXPECT_EQ(solver.oracle_calls(), 1u);  // the first model: the rest was the local search's
}

// Inequalities too: the values that cannot mend one (those past the bound that undoing `-`,
// negation, * by a negative factor and floor division gives) are skipped, never one that can.
// (b - 3a) / 4 <= 1 is b - 3a <= 7: some a <= 4 has it for b <= 19 (not only for b <= 16, as
// b - 3a <= 4 would); 10 >= -2d - e has some d <= -3 for e >= -4. Each value is tried on the
// first model, which a mend must move, not on the last value's witness.
TEST(JointConstraints, LocalSearchMendsAnInequalityWhereSomeValuesCan) {
  SKIP_WITHOUT_Z3();
  Spec s("t.inequality");
  s.in(Int("a").value(Be(-20, 4)))
      .in(Int("b").value(Be(-20, 20)))
      .in(Int("c").value(Be(0, 1)))
      .in(Int("d").value(Be(-20, -3)))
      .in(Int("e").value(Be(-20, 20)))
      .joint("(b - 3a) / 4 <= 1", (value("b") - 3 * value("a")) / 4 <= 1)
      .joint("c >= 0", value("c") >= 0)
      .joint("10 >= -2d - e", 10 >= -2 * value("d") - value("e"));
  Problem problem(s);
  auto completes = [&](int arg, int64_t v) {
    JointSolver solver(s, problem.cfg, problem.attrs);
    Rng rng(1);
    solver.begin(Task{0, Attribute::Value, -1}, rng);
    auto slot = [&](int arg) { return solver.slot(arg, ArgType::Int, Attribute::Value, -1); };
    EXPECT_TRUE(solver.completes(slot(2), 1, rng));  // the tuple's first choice
    solver.fix(slot(2), 1);
    const bool done = solver.completes(slot(arg), v, rng);
    EXPECT_EQ(solver.oracle_calls(), 1u);  // the first model: the rest was the local search's
    return done;
  };
  for (int64_t v = -20; v <= 20; ++v) {
    SCOPED_TRACE(v);
    EXPECT_EQ(completes(1, v), v <= 19);
    EXPECT_EQ(completes(4, v), v >= -4);
  }
}

TEST(JointConstraints, InvalidTupleBreaksExactlyTheNegatedJointConstraint) {
  SKIP_WITHOUT_Z3();
  Spec s = tight_sum();
  MetaArgTupleEngine engine(s, Config{});
  auto tasks = engine.invalid_tasks();
  ASSERT_EQ(tasks.size(), 3u);  // length, and the two joint constraints
  ASSERT_EQ(tasks[2].joint, 1);
  auto r = run(s, Config{}, tasks[2], 50);
  EXPECT_EQ(r.dead_ends, 0);
  for (const auto& t : r.tuples) {
    EXPECT_EQ(t.violated, "parts sum to 3");
    EXPECT_NE(sum_of(t.metas[0]), 3);
    for (auto v : std::get<IntList>(t.metas[0].value)) EXPECT_GE(v, 0);  // the other one holds
  }
}

TEST(JointConstraints, Z3TimeoutIsAnErrorNamingTheSpec) {
  SKIP_WITHOUT_Z3();
  // Sums of three cubes are hard for any solver; one millisecond is not enough.
  Spec s("t.cubes");
  s.in(Int("x")).in(Int("y")).in(Int("z")).joint(
      "x^3 + y^3 + z^3 == 33", value("x") * value("x") * value("x") + value("y") * value("y") * value("y") +
                                       value("z") * value("z") * value("z") ==
                                   33);
  Config cfg;
  cfg.limits.int_lo = -1'000'000'000'000'000, cfg.limits.int_hi = 1'000'000'000'000'000;
  cfg.limits.solver_timeout_ms = 1;
  MetaArgTupleEngine engine(s, cfg);
  MetaTuple t;
  Rng rng(0);
  try {
    engine.solve({0, Attribute::Value, -1}, 0, rng, nullptr, t);
    FAIL() << "expected the solver to give up";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("t.cubes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gave up"), std::string::npos) << e.what();
  }
}

TEST(JointConstraints, SameSeedSameTuples) {
  Spec s = tight_sum();
  for (auto j : {JointStrategy::Sampling, JointStrategy::Z3}) {
    if (j == JointStrategy::Z3 && !have_z3()) continue;
    auto a = run(s, with(j), {0, Attribute::Value, -1}, 50, 9), b = run(s, with(j), {0, Attribute::Value, -1}, 50, 9);
    for (size_t i = 0; i < a.tuples.size(); ++i)
      EXPECT_EQ(a.tuples[i].metas[0].to_string(), b.tuples[i].metas[0].to_string());
  }
}

TEST(Config, JointStrategyWords) {
  EXPECT_EQ(Config::parse("sampling").joint, JointStrategy::Sampling);
  if (have_z3()) EXPECT_EQ(Config::parse("sampling,z3").joint, JointStrategy::Z3);
  else EXPECT_THROW(Config::parse("z3"), std::invalid_argument);
}

}  // namespace
}  // namespace opsfuzz
