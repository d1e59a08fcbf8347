// Calling operators by name: names, lookup, Python-style binding, typed lists, outcomes, and
// isolated workers.
#include "opcall/opcall.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace opsfuzz::opcall {
namespace {

using ::testing::HasSubstr;

// The message of the exception E that f throws, or "" if it throws none.
template <class E, class F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) { return e.what(); }
  return "";
}

std::string bind_error(std::string_view op, const Stack& args, const Kwargs& kwargs = {}) {
  return error_of<BindError>([&] { call(op, args, kwargs); });
}

c10::IValue generic_list(std::vector<c10::IValue> items) {
  c10::impl::GenericList list(c10::AnyType::get());
  for (auto& item : items) list.push_back(std::move(item));
  return list;
}

// --------------------------------------------------------------------------- names, lookup

TEST(OpName, ParsesNamespaceNameAndOverload) {
  OpName a = parse_name("add.Tensor");
  EXPECT_EQ(a.ns, "aten");
  EXPECT_EQ(a.name, "add");
  EXPECT_EQ(a.overload, "Tensor");
  EXPECT_EQ(a.str(), "aten::add.Tensor");
  OpName b = parse_name("aten::add.Tensor");
  EXPECT_EQ(b.qualified(), "aten::add");
  EXPECT_EQ(b.overload, "Tensor");
  OpName c = parse_name("abs.default");
  EXPECT_EQ(c.overload, "");  // the default overload
  EXPECT_EQ(c.str(), "aten::abs");
  OpName d = parse_name("aten::add");
  EXPECT_EQ(d.name, "add");
  EXPECT_EQ(d.overload, std::nullopt);  // none given
  OpName e = parse_name("prim::NumToTensor.Scalar");
  EXPECT_EQ(e.ns, "prim");
  EXPECT_EQ(e.name, "NumToTensor");
  for (const char* bad : {"", "aten::", "::add", ".Tensor", "add.", "add.Tensor.out", "a b"})
    EXPECT_THROW(parse_name(bad), LookupError) << bad;
}

TEST(Lookup, FindsOverloadsAndTheDefaultOne) {
  const Op& add = find_op("add.Tensor");
  EXPECT_EQ(add.name(), "aten::add.Tensor");
  EXPECT_EQ(&find_op("aten::add.Tensor"), &add);  // cached: the same entry
  EXPECT_TRUE(add.in_dispatcher());
  EXPECT_EQ(find_op("abs").schema().overload_name(), "");
  EXPECT_EQ(&find_op("abs.default"), &find_op("aten::abs"));
  auto all = overloads("aten::add");
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(all.front().name(), "aten::add.Tensor");
  EXPECT_TRUE(all.front().in_dispatcher());
  EXPECT_FALSE(all.back().in_dispatcher());  // TorchScript-only ones come last
  EXPECT_FALSE(find_op("aten::add.int").in_dispatcher());
  EXPECT_TRUE(has_op("add"));
  EXPECT_TRUE(has_op("aten::add.Scalar"));
  EXPECT_FALSE(has_op("add.Nope"));
  EXPECT_FALSE(has_op("no_such_op"));
  EXPECT_FALSE(has_op("bad name"));
}

TEST(Lookup, UnknownOperatorsAndOverloadsSuggestCloseNames) {
  std::string e = error_of<LookupError>([] { find_op("aten::sofmax"); });
  EXPECT_THAT(e, HasSubstr("unknown operator 'aten::sofmax'"));
  EXPECT_THAT(e, HasSubstr("did you mean 'aten::softmax'"));
  e = error_of<LookupError>([] { find_op("add.Tensr"); });
  EXPECT_THAT(e, HasSubstr("operator 'aten::add' has no overload 'Tensr' (did you mean 'Tensor'?)"));
  EXPECT_THAT(e, HasSubstr("its overloads: Tensor, Scalar"));
  e = error_of<LookupError>([] { find_op("mul_"); });  // aten::mul_ has no default overload
  EXPECT_THAT(e, HasSubstr("operator 'aten::mul_' has no overload 'default'"));
  EXPECT_THAT(suggest_op("aten::sofmax"), ::testing::StartsWith(" (did you mean 'aten::softmax'"));
  EXPECT_EQ(suggest_op("aten::qwertyuiop_zxcvbnm"), "");
  // A lookup failure is never the kernel's: try_call says BindError.
  CallOutcome o = try_call("no_such_op.default", {at::ones({1})});
  EXPECT_EQ(o.kind, CallOutcome::BindError);
  EXPECT_THAT(o.message, HasSubstr("unknown operator 'aten::no_such_op'"));
}

// --------------------------------------------------------------------------- binding

TEST(Bind, PositionalsKeywordsAndDefaults) {
  at::Tensor x = at::arange(4.0), y = at::ones({4});
  const Op& add = find_op("add.Tensor");
  Stack s = add.bind({x, y});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2].toInt(), 1);  // alpha's default
  s = add.bind({x}, {{"alpha", 3}, {"other", y}});
  EXPECT_TRUE(s[1].toTensor().equal(y));
  EXPECT_EQ(s[2].toInt(), 3);
  EXPECT_TRUE(to_python(add({x, y}, {{"alpha", 3}})).toTensor().equal(x + 3 * y));
  at::Tensor m = at::ones({2, 3});
  Stack sum = find_op("sum.dim_IntList").bind({m, c10::List<int64_t>({1})});
  ASSERT_EQ(sum.size(), 4u);
  EXPECT_FALSE(sum[2].toBool());  // keepdim=False
  EXPECT_TRUE(sum[3].isNone());   // dtype=None
  EXPECT_EQ(call("aten::sum", {m, c10::List<int64_t>({1})}, {{"keepdim", true}})[0].toTensor().sizes(),
            at::IntArrayRef({2, 1}));
}

TEST(Bind, KeywordOnlyParametersAreNeverFilledByPositionals) {
  at::Tensor x = at::ones({2});
  try {
    find_op("add.Tensor").bind({x, x, 2});
    FAIL() << "bound a positional to the keyword-only alpha";
  } catch (const BindError& e) {
    EXPECT_EQ(e.op(), "aten::add.Tensor");
    EXPECT_EQ(e.argument(), "alpha");
    EXPECT_THAT(std::string(e.what()), HasSubstr("aten::add.Tensor takes 2 positional arguments but 3 were given "
                                                 "(keyword-only: alpha)"));
  }
  CallOutcome o = try_call("add.Tensor", {x, x, 2});
  EXPECT_EQ(o.kind, CallOutcome::BindError);
  EXPECT_EQ(try_call(find_op("add.Tensor"), {x, x, 2}).kind, CallOutcome::BindError);
}

TEST(Bind, UnknownRepeatedAndMissingArgumentsAreNamed) {
  at::Tensor x = at::ones({2});
  try {
    find_op("add.Tensor").bind({x, x}, {{"alhpa", 2}});
    FAIL();
  } catch (const BindError& e) {
    EXPECT_EQ(e.argument(), "alhpa");
    EXPECT_THAT(std::string(e.what()), HasSubstr("aten::add.Tensor got an unexpected keyword argument 'alhpa' (did you "
                                                 "mean 'alpha'?)"));
  }
  EXPECT_THAT(bind_error("add.Tensor", {x, x}, {{"other", x}}),
              HasSubstr("aten::add.Tensor got multiple values for argument 'other'"));
  EXPECT_THAT(bind_error("add.Tensor", {x, x}, {{"alpha", 1}, {"alpha", 2}}),
              HasSubstr("got multiple values for argument 'alpha'"));
  EXPECT_THAT(bind_error("add.Tensor", {x}), HasSubstr("aten::add.Tensor missing required argument 'other'"));
  EXPECT_THAT(bind_error("aten::relu", {x}, {{"alhpa", 1}}), HasSubstr("unexpected keyword argument 'alhpa'"));
}

TEST(Bind, TypesAreCheckedAndConvertedAsPythonDoes) {
  at::Tensor img = at::rand({1, 1, 4, 4});
  EXPECT_THAT(bind_error("aten::add.Tensor", {img, 2}),
              HasSubstr("aten::add.Tensor: argument 'other' expects Tensor, got int"));
  EXPECT_THAT(bind_error("aten::sum.dim_IntList", {img, c10::List<int64_t>({1}), 1}),
              HasSubstr("argument 'keepdim' expects bool, got int"));
  // An int for int[2] repeats; an int for float converts; names for dtypes and memory formats.
  EXPECT_EQ(to_python(call("aten::max_pool2d", {img, 2})).toTensor().sizes(), at::IntArrayRef({1, 1, 2, 2}));
  EXPECT_TRUE(to_python(call("aten::dropout", {img, 0, false})).toTensor().equal(img));
  EXPECT_EQ(to_python(call("aten::sum", {img}, {{"dtype", std::string("float64")}})).toTensor().scalar_type(),
            at::kDouble);
  EXPECT_EQ(to_python(call("aten::sum", {img}, {{"dtype", std::string("torch.long")}})).toTensor().scalar_type(),
            at::kLong);
  at::Tensor nchw = to_python(call("aten::contiguous", {at::rand({1, 2, 3, 3})},
                                   {{"memory_format", std::string("torch.channels_last")}}))
                        .toTensor();
  EXPECT_TRUE(nchw.is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_EQ(to_python(call("aten::zeros", {c10::List<int64_t>({2})},
                           {{"layout", std::string("torch.strided")}, {"device", std::string("cpu")}}))
                .toTensor()
                .sizes(),
            at::IntArrayRef({2}));
  EXPECT_THAT(bind_error("aten::sum", {img}, {{"dtype", std::string("float128")}}),
              HasSubstr("argument 'dtype' expects ScalarType?, got str"));
  // Optional arguments default to None.
  EXPECT_EQ(to_python(call("aten::linear", {at::ones({2, 3}), at::ones({4, 3})})).toTensor().sizes(),
            at::IntArrayRef({2, 4}));
}

TEST(Bind, GenericParametersForOtherSignatures) {
  c10::IValue zero(0), none;
  std::vector<Parameter> params = {{"a"}, {"b", &zero}, {"c", &none, true}};
  Stack s = bind_arguments("f()", params, {1}, {{"c", 5}});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].toInt(), 1);
  EXPECT_EQ(s[1].toInt(), 0);
  EXPECT_EQ(s[2].toInt(), 5);
  EXPECT_THAT(error_of<BindError>([&] {
                bind_arguments("f()", params, {1, 2, 3}, {});
              }),
              HasSubstr("f() takes 2 positional arguments but 3 were given (keyword-only: c)"));
  EXPECT_THAT(error_of<BindError>([&] { bind_arguments("f()", params, {}, {}); }),
              HasSubstr("f() missing required argument 'a'"));
  // A *args parameter: every positional goes to rest when all parameters are keyword-only.
  std::vector<Parameter> variadic = {{"inplace", &zero, true}};
  Stack rest;
  s = bind_arguments("Seq", variadic, {7, 8}, {}, &rest);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[1].toInt(), 8);
  EXPECT_EQ(s[0].toInt(), 0);
}

// --------------------------------------------------------------------------- typed lists

TEST(TypedLists, SymIntListsArriveAsIntListsResize) {
  // aten::resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None)
  at::Tensor t = at::zeros({2});
  const Op& resize = find_op("resize_");
  Stack s = resize.bind({t, generic_list({2, 3})});
  EXPECT_TRUE(s[1].isIntList());
  CallOutcome o = try_call("resize_.default", {t, generic_list({2, 3})});
  EXPECT_EQ(o.kind, CallOutcome::Accepted) << o.message;
  EXPECT_EQ(t.sizes(), at::IntArrayRef({2, 3}));
  Stack out = call("aten::resize_", {t, c10::ivalue::Tuple::create({4, 1})});
  EXPECT_EQ(out[0].toTensor().sizes(), at::IntArrayRef({4, 1}));
  EXPECT_EQ(to_python(call("aten::view", {at::arange(6), generic_list({3, 2})})).toTensor().sizes(),
            at::IntArrayRef({3, 2}));
}

TEST(TypedLists, IntFloatBoolTensorAndOptionalTensorLists) {
  auto int_list = coerce(generic_list({1, 2}), c10::ListType::ofInts());
  ASSERT_TRUE(int_list);
  EXPECT_TRUE(int_list->isIntList());
  EXPECT_EQ(int_list->toIntVector(), (std::vector<int64_t>{1, 2}));
  auto sym_list = coerce(generic_list({3}), c10::ListType::create(c10::SymIntType::get()));
  ASSERT_TRUE(sym_list);
  EXPECT_TRUE(sym_list->isIntList());
  EXPECT_FALSE(coerce(generic_list({1.5}), c10::ListType::ofInts()));

  auto float_list = coerce(generic_list({1, 2.5}), c10::ListType::ofFloats());  // ints convert
  ASSERT_TRUE(float_list);
  EXPECT_TRUE(float_list->isDoubleList());
  EXPECT_EQ(float_list->toDoubleVector(), (std::vector<double>{1.0, 2.5}));
  // float[]? scale_factors of upsample_nearest2d.vec, given as ints.
  at::Tensor img = at::rand({1, 1, 2, 2});
  Stack up = call("upsample_nearest2d.vec", {img, c10::IValue(), generic_list({2, 2})});
  EXPECT_EQ(up[0].toTensor().sizes(), at::IntArrayRef({1, 1, 4, 4}));

  // The typed lists the generators make (FloatList, BoolList arguments) pass as they are.
  c10::IValue doubles(c10::List<double>({0.5, 2}));
  EXPECT_TRUE(coerce(doubles, c10::ListType::ofFloats())->is(doubles));
  c10::IValue bools(c10::List<bool>({true, false, true}));
  EXPECT_TRUE(coerce(bools, c10::ListType::ofBools(), 3)->is(bools));

  auto bool_list = coerce(generic_list({true, false}), c10::ListType::ofBools());
  ASSERT_TRUE(bool_list);
  EXPECT_TRUE(bool_list->isBoolList());
  EXPECT_FALSE(coerce(generic_list({1}), c10::ListType::ofBools()));
  // bool[3] output_mask of convolution_backward.
  at::Tensor input = at::rand({1, 1, 3, 3}), weight = at::rand({1, 1, 2, 2});
  Stack grads = call("convolution_backward",
                     {at::ones({1, 1, 2, 2}), input, weight, c10::IValue(), generic_list({1, 1}), generic_list({0, 0}),
                      generic_list({1, 1}), false, generic_list({0, 0}), 1, generic_list({true, true, false})});
  ASSERT_EQ(grads.size(), 3u);
  EXPECT_EQ(grads[1].toTensor().sizes(), weight.sizes());
  EXPECT_FALSE(grads[2].toTensor().defined());

  auto tensor_list = coerce(c10::ivalue::Tuple::create({at::ones({2}), at::zeros({3})}), c10::ListType::ofTensors());
  ASSERT_TRUE(tensor_list);
  EXPECT_TRUE(tensor_list->isTensorList());
  EXPECT_EQ(to_python(call("aten::cat", {generic_list({at::ones({2}), at::zeros({3})})})).toTensor().size(0), 5);
  EXPECT_EQ(to_python(call("aten::cat", {c10::List<at::Tensor>({at::ones({2}), at::ones({1})})})).toTensor().size(0),
            3);

  auto opt_type = c10::ListType::create(c10::OptionalType::create(c10::TensorType::get()));
  auto opt_list = coerce(generic_list({c10::IValue(), at::tensor({1, 0}, at::kLong)}), opt_type);
  ASSERT_TRUE(opt_list);
  EXPECT_TRUE(opt_list->isOptionalTensorList());
  // index.Tensor(Tensor self, Tensor?[] indices): m[:, [1, 0]]
  at::Tensor m = at::arange(4).reshape({2, 2});
  at::Tensor picked =
      call("index.Tensor", {m, generic_list({c10::IValue(), at::tensor({1, 0}, at::kLong)})})[0].toTensor();
  EXPECT_TRUE(picked.equal(m.flip(1)));
  EXPECT_FALSE(coerce(generic_list({1}), opt_type));
}

// --------------------------------------------------------------------------- overloads, call

TEST(Call, ResolvesTheOverloadFromTheArguments) {
  at::Tensor x = at::arange(4.0), y = at::ones({4});
  EXPECT_EQ(resolve("aten::add", {x, y}).op->name(), "aten::add.Tensor");
  EXPECT_EQ(resolve("aten::add", {x, 2}).op->name(), "aten::add.Scalar");
  EXPECT_EQ(resolve("aten::add", {2, 3}).op->name(), "aten::add.int");
  EXPECT_EQ(resolve("add.Tensor", {x, x}).op->name(), "aten::add.Tensor");
  EXPECT_TRUE(to_python(call("aten::add", {x, y})).toTensor().equal(x + y));
  EXPECT_EQ(to_python(call("aten::add", {2, 3})).toInt(), 5);  // an operator of TorchScript only
  std::string e = bind_error("aten::relu", {c10::IValue(1)});
  EXPECT_THAT(e, HasSubstr("no overload of aten::relu accepts (int): aten::relu: argument 'self' "
                           "expects Tensor, got int"));
  e = bind_error("aten::add", {at::ones({1}), std::string("x")});
  EXPECT_THAT(e, HasSubstr("aten::add.Tensor: argument 'other' expects Tensor, got str"));
  EXPECT_THAT(e, HasSubstr("aten::add.Scalar: argument 'other' expects Scalar, got str"));
}

TEST(Call, MultipleResultsAndNone) {
  c10::IValue r = to_python(call("aten::max.dim", {at::tensor({1.0, 5.0, 2.0}), 0}));
  ASSERT_TRUE(r.isTuple());
  EXPECT_EQ(r.toTupleRef().elements()[1].toTensor().item<int64_t>(), 1);
  EXPECT_TRUE(to_python({}).isNone());
}

TEST(Outcome, KernelRejectionIsRejectedWithItsMessage) {
  EXPECT_THROW(call("aten::mm", {at::ones({2, 3}), at::ones({2, 3})}), c10::Error);
  Stack out;
  CallOutcome o = try_call("mm.default", {at::ones({2, 3}), at::ones({2, 3})}, {}, &out);
  EXPECT_EQ(o.kind, CallOutcome::Rejected);
  EXPECT_THAT(o.message, HasSubstr("cannot be multiplied"));
  EXPECT_THAT(o.message, ::testing::Not(HasSubstr("frame #")));
  o = try_call("mm.default", {at::ones({2, 3}), at::ones({3, 1})}, {}, &out);
  EXPECT_EQ(o.kind, CallOutcome::Accepted);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].toTensor().sizes(), at::IntArrayRef({2, 1}));
  EXPECT_EQ(name(CallOutcome::Accepted), "accepted");
  EXPECT_EQ(name(CallOutcome::Rejected), "rejected");
  EXPECT_EQ(name(CallOutcome::BindError), "bind error");
  EXPECT_EQ(name(CallOutcome::Crashed), "crashed");
  EXPECT_EQ(name(CallOutcome::TimedOut), "timed out");
}

// The full what() of a c10::Error from a kernel (with the backtrace when they are on).
std::string full_error() {
  try {
    at::add(at::ones({3}), at::ones({4}));
  } catch (const c10::Error& e) { return e.what(); }
  return "";
}

TEST(Backtraces, OffLeavesThemOutOfErrors) {
  bool before = backtraces();
  set_backtraces(false);
  EXPECT_FALSE(backtraces());
  std::string off = full_error();
  set_backtraces(true);
  std::string on = full_error();
  set_backtraces(before);
  EXPECT_THAT(off, HasSubstr("must match the size"));
  EXPECT_THAT(off, ::testing::Not(HasSubstr("frame #")));
  EXPECT_THAT(on, HasSubstr("frame #"));
}

// --------------------------------------------------------------------------- isolation

CallOutcome ok() { return {CallOutcome::Accepted, {}}; }

// Options that record the order in which outcomes are reported.
IsolationOptions recording(std::vector<size_t>& seen) {
  IsolationOptions options;
  options.timeout_s = 30;
  options.on_result = [&seen](size_t i, const CallOutcome&) { seen.push_back(i); };
  return options;
}

TEST(Isolation, ACrashCostsOneItemAndTheNextOnesRun) {
  std::vector<size_t> seen;
  IsolationOptions options = recording(seen);
  auto outcomes = run_isolated(
      6,
      [](size_t i) -> CallOutcome {
        if (i == 1) ::raise(SIGSEGV);
        if (i == 3) std::abort();
        if (i == 4) return try_call("mm.default", {at::ones({2, 3}), at::ones({2, 3})});
        return try_call("add.Tensor", {at::ones({2}), at::ones({2})});
      },
      options);
  ASSERT_EQ(outcomes.size(), 6u);
  EXPECT_EQ(outcomes[0].kind, CallOutcome::Accepted);
  EXPECT_EQ(outcomes[1].kind, CallOutcome::Crashed);
  EXPECT_THAT(outcomes[1].message, HasSubstr("Segmentation fault"));
  EXPECT_EQ(outcomes[2].kind, CallOutcome::Accepted);
  EXPECT_EQ(outcomes[3].kind, CallOutcome::Crashed);
  EXPECT_THAT(outcomes[3].message, HasSubstr("Aborted"));
  EXPECT_EQ(outcomes[4].kind, CallOutcome::Rejected);
  EXPECT_EQ(outcomes[5].kind, CallOutcome::Accepted);
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
}

// A task that damages its worker (here: a flag standing for a corrupted heap) without dying is
// blamed when a later task dies of it; the tasks in between are run again.
bool damaged = false;

TEST(Isolation, ADelayedCrashIsBlamedOnTheTaskThatCausedIt) {
  std::vector<size_t> seen;
  IsolationOptions options = recording(seen);
  auto outcomes = run_isolated(
      7,
      [](size_t i) -> CallOutcome {
        if (i == 2) damaged = true;
        if (i == 5 && damaged) std::abort();
        return {CallOutcome::Accepted, std::to_string(i)};
      },
      options);
  ASSERT_EQ(outcomes.size(), 7u);
  for (size_t i : {0, 1, 3, 4, 5, 6}) {
    EXPECT_EQ(outcomes[i].kind, CallOutcome::Accepted) << i;
    EXPECT_EQ(outcomes[i].message, std::to_string(i));
  }
  EXPECT_EQ(outcomes[2].kind, CallOutcome::Crashed);
  EXPECT_THAT(outcomes[2].message, HasSubstr("Aborted"));
  EXPECT_THAT(outcomes[2].message, HasSubstr("found during the later task #5; run again from this task"));
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
}

// A task whose damage kills its worker only on some runs (where a kernel writes past its buffer
// may vary; here: on its second run alone, once a marker file exists) is its own culprit, found
// by its further runs alone, and no task before it, which only shaped the heap, is blamed.
TEST(Isolation, ATaskThatKillsOnlySomeOfItsRunsAloneIsItsOwnCulprit) {
  const std::string marker = ::testing::TempDir() + "opsfuzz_isolation_alone_" + std::to_string(::getpid());
  std::remove(marker.c_str());
  auto outcomes = run_isolated(7, [&marker](size_t i) -> CallOutcome {
    if (i == 2) damaged = true;  // stands for the heap layout under which task 5's damage kills at once
    if (i == 5) {
      if (damaged) std::abort();
      if (std::FILE* f = std::fopen(marker.c_str(), "r")) std::fclose(f), std::abort();
      if (std::FILE* f = std::fopen(marker.c_str(), "w")) std::fclose(f);
    }
    return {CallOutcome::Accepted, std::to_string(i)};
  });
  std::remove(marker.c_str());
  ASSERT_EQ(outcomes.size(), 7u);
  for (size_t i : {0, 1, 2, 3, 4, 6}) EXPECT_EQ(outcomes[i].kind, CallOutcome::Accepted) << i;
  EXPECT_EQ(outcomes[5].kind, CallOutcome::Crashed);
  EXPECT_THAT(outcomes[5].message, HasSubstr("run again alone, this task kills its worker again"));
}

// A task that crashes only when run again (here: once a marker file exists) dies earlier in the
// runs that look for the cause of a delayed crash: that is another crash, and blames no task of
// no fault. The delayed crash stays with the task it killed, saying that no earlier task reproduces it.
TEST(Isolation, ACrashAtAnotherTaskWhileLookingForACauseBlamesNothingElse) {
  const std::string marker = ::testing::TempDir() + "opsfuzz_isolation_marker_" + std::to_string(::getpid());
  std::remove(marker.c_str());
  auto outcomes = run_isolated(7, [&marker](size_t i) -> CallOutcome {
    if (i == 2) damaged = true;
    if (i == 4) {
      if (std::FILE* f = std::fopen(marker.c_str(), "r")) std::fclose(f), std::abort();
      if (std::FILE* f = std::fopen(marker.c_str(), "w")) std::fclose(f);
    }
    if (i == 5 && damaged) std::abort();
    return {CallOutcome::Accepted, std::to_string(i)};
  });
  std::remove(marker.c_str());
  ASSERT_EQ(outcomes.size(), 7u);
  for (size_t i : {0, 1, 2, 3, 4, 6}) EXPECT_EQ(outcomes[i].kind, CallOutcome::Accepted) << i;
  EXPECT_EQ(outcomes[5].kind, CallOutcome::Crashed);
  EXPECT_THAT(outcomes[5].message, HasSubstr("no earlier task reproduces it"));
}

// A task known to crash now and then (its out-of-range read faults or not as the heap lies) is its
// own culprit when its worker dies during it, whatever ran before it.
TEST(Isolation, ATaskKnownToCrashNowAndThenIsItsOwnCulprit) {
  IsolationOptions options;
  options.crashes_by_itself = [](size_t i) { return i == 4; };
  auto outcomes = run_isolated(
      6,
      [](size_t i) -> CallOutcome {
        if (i == 1) damaged = true;  // stands for the heap layout that makes task 4's read fault
        if (i == 4 && damaged) std::abort();
        return {CallOutcome::Accepted, std::to_string(i)};
      },
      options);
  ASSERT_EQ(outcomes.size(), 6u);
  for (size_t i : {0, 1, 2, 3, 5}) EXPECT_EQ(outcomes[i].kind, CallOutcome::Accepted) << i;
  EXPECT_EQ(outcomes[4].kind, CallOutcome::Crashed);
  EXPECT_THAT(outcomes[4].message, HasSubstr("known to crash now and then"));
}

// A worker that dies just after replying (a heap check in a destructor, say) is gone before
// it is handed the next task: handing it over must not kill this process with SIGPIPE.
TEST(Isolation, AWorkerThatDiesBetweenTasksCostsNoMoreThanItsCrash) {
  IsolationOptions options;
  options.window = 1;  // each result is final before the next task is handed over
  options.on_result = [](size_t, const CallOutcome&) { ::usleep(200 * 1000); };
  auto outcomes = run_isolated(
      3,
      [](size_t i) -> CallOutcome {
        if (i == 0) std::thread([] { ::usleep(10 * 1000), ::_exit(3); }).detach();
        return {CallOutcome::Accepted, std::to_string(i)};
      },
      options);
  ASSERT_EQ(outcomes.size(), 3u);
  for (size_t i : {0, 1, 2}) EXPECT_EQ(outcomes[i].message, std::to_string(i)) << i;
}

TEST(Isolation, WhatADyingWorkerPrintsIsPartOfItsCrashNotNoise) {
  ::testing::internal::CaptureStderr();
  auto outcomes = run_isolated(2, [](size_t i) -> CallOutcome {
    if (i == 0) {
      std::fputs("a first line\nfree(): invalid pointer\n", stderr);
      std::abort();
    }
    return ok();
  });
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].message, "killed by signal 6 (Aborted): free(): invalid pointer");
  EXPECT_EQ(outcomes[1].kind, CallOutcome::Accepted);
}

TEST(Isolation, AHangTimesOutAndTheNextItemsRun) {
  auto outcomes = run_isolated(
      3,
      [](size_t i) -> CallOutcome {
        if (i == 1)
          for (;;) ::pause();
        return ok();
      },
      0.5);
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].kind, CallOutcome::Accepted);
  EXPECT_EQ(outcomes[1].kind, CallOutcome::TimedOut);
  EXPECT_EQ(outcomes[1].message, "no result within 0.5 s");
  EXPECT_EQ(outcomes[2].kind, CallOutcome::Accepted);
}

TEST(Isolation, AnExceptionEscapingAnItemIsReportedAndTheWorkerGoesOn) {
  auto outcomes = run_isolated(2, [](size_t i) -> CallOutcome {
    if (i == 0) throw std::runtime_error("boom");
    return ok();
  });
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].kind, CallOutcome::Crashed);
  EXPECT_THAT(outcomes[0].message, HasSubstr("the item threw: boom"));
  EXPECT_EQ(outcomes[1].kind, CallOutcome::Accepted);
  EXPECT_TRUE(run_isolated(0, [](size_t) { return ok(); }).empty());
}

TEST(Isolation, WorkersTurnBacktracesOffUnlessAsked) {
  // The item reports the full what() of a rejected call, backtrace included if there is one.
  auto item = [](size_t) -> CallOutcome { return {CallOutcome::Rejected, full_error()}; };
  auto off = run_isolated(1, item, 30);
  auto on = run_isolated(1, item, 30, /*backtraces=*/true);
  ASSERT_EQ(off.size(), 1u);
  ASSERT_EQ(on.size(), 1u);
  EXPECT_THAT(off[0].message, HasSubstr("must match the size"));
  EXPECT_THAT(off[0].message, ::testing::Not(HasSubstr("frame #")));
  EXPECT_THAT(on[0].message, HasSubstr("frame #"));
}

TEST(Warnings, KernelWarningsCanBeTurnedOff) {
  set_kernel_warnings(false);
  ::testing::internal::CaptureStderr();
  TORCH_WARN("a deprecation notice");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  set_kernel_warnings(true);
  ::testing::internal::CaptureStderr();
  TORCH_WARN("a deprecation notice");
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("a deprecation notice"));
}

}  // namespace
}  // namespace opsfuzz::opcall
