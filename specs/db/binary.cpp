// Pointwise ops of two or more operands: broadcasting and type promotion. Most specs are one line
// of a family builder: `binary` (Tensor self, Tensor other), `with_scalar` (Tensor self, Scalar
// other), `addc` (addcdiv, addcmul) and `masked_fill`.
#include "specs/db/families.h"

#include <limits>

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;
using K = ScalarDtype;

// ---- Dtype sets and promotion ---------------------------------------------------------------

std::vector<S> integral_or_bool() { return listed(integral_and_bool_dtypes()); }
// The named dtype sets of argtypes.h as the builders take them.
const std::vector<S> kEvery = listed(real_and_complex_dtypes()), kNumeric = listed(numeric_dtypes());
// Numbers: not bool; complex ones with them.
const std::vector<S> kNumbers = with_complex(kNumeric);

std::vector<S> without(std::vector<S> ds, S t) {
  std::erase(ds, t);
  return ds;
}

std::string text(const std::vector<S>& ds) {
  if (ds == kEvery) return "every dtype but complex32";
  std::string s = "{";
  for (S t : ds) s.append(s.size() > 1 ? ", " : "").append(name(t));
  return s + "}";
}

bool has(const std::vector<S>& ds, S t) { return ds.empty() || std::find(ds.begin(), ds.end(), t) != ds.end(); }
bool integral(S t) { return c10::isIntegralType(t, true); }

// The dtype of `t` op a Scalar of kind `k`: a Python number joins the promotion by its category
// only (an int Scalar keeps int8 int8, a float Scalar makes integral tensors float32).
S promoted_with(S t, K k) {
  if (k == K::Float && integral(t)) return S::Float;  // the default dtype
  if (k == K::Int && t == S::Bool) return S::Long;
  return t;
}

// The result dtype of tensors by the promotion rules: dimensioned tensors first, then 0-dim ones,
// which count only when of a higher category (bool < integral < floating < complex): float16 [3]
// with float64 [] gives float16, and with complex64 [] the complex dtype of float16's width,
// complex32 (c10's ResultTypeState).
struct Typed {
  S dtype;
  bool zero_dim;
};
S promote_defined(S a, S b) {
  if (a == S::Undefined) return b;
  if (b == S::Undefined) return a;
  return c10::promoteTypes(a, b);
}
S combine_categories(S higher, S lower) {
  if (c10::isComplexType(higher)) return higher;
  if (c10::isComplexType(lower)) return c10::isFloatingType(higher) ? c10::toComplexType(higher) : lower;
  if (c10::isFloatingType(higher)) return higher;
  if (higher == S::Bool || c10::isFloatingType(lower)) return promote_defined(higher, lower);
  return higher != S::Undefined ? higher : lower;
}
S result_type(std::initializer_list<Typed> ts) {
  S dim = S::Undefined, zero = S::Undefined;
  for (const Typed& t : ts) (t.zero_dim ? zero : dim) = promote_defined(t.zero_dim ? zero : dim, t.dtype);
  return combine_categories(dim, zero);
}
// The result dtype of the tensors `args` that are given (an optional one may be None), with the
// tensor being solved (its dtype known) as `own`, 0-dim or not.
S result_type(const Ctx& c, const std::vector<std::string>& args, std::optional<Typed> own = std::nullopt) {
  S joined = S::Undefined;
  std::vector<Typed> ts;
  for (const auto& a : args)
    if (!c.is_none(a)) ts.push_back({c.dtype(a), c.rank(a) == 0});
  if (own) ts.push_back(*own);
  S dim = S::Undefined, zero = S::Undefined;
  for (const Typed& t : ts) (t.zero_dim ? zero : dim) = promote_defined(t.zero_dim ? zero : dim, t.dtype);
  joined = result_type({{dim, false}, {zero, true}});
  return joined;
}

// For the Rank of the tensor being solved: the ranks at which it promotes with the tensors `with`
// into `results` (0-dim tensors promote by category only), or none when every rank does.
std::optional<std::vector<int64_t>> ranks_into(const Ctx& c, const std::vector<std::string>& with,
                                               const std::vector<S>& results) {
  S own = c.own_dtype();
  bool zero = has(results, result_type(c, with, Typed{own, true}));
  bool dimensioned = has(results, result_type(c, with, Typed{own, false}));
  if (zero && dimensioned) return std::nullopt;
  std::vector<int64_t> ranks;
  if (zero) ranks.push_back(0);
  if (dimensioned)
    for (int64_t r = 1; r <= 64; ++r) ranks.push_back(r);
  return ranks;
}
Cond ranks_promoting_into(std::vector<std::string> with, std::vector<S> results) {
  std::string t = "the ranks at which it promotes with ";
  for (size_t i = 0; i < with.size(); ++i) t += (i ? " and " : "") + with[i];
  return In(t + " to " + text(results), [with, results](const Ctx& c) { return ranks_into(c, with, results); });
}

// The dtypes `arg` may take so that it promotes with the tensors `with` into `results`.
Cond promotes_into(std::vector<std::string> with, std::vector<S> results) {
  std::string t = "the dtypes that promote with ";
  for (size_t i = 0; i < with.size(); ++i) t += (i ? " and " : "") + with[i];
  return In(t + " to " + text(results), [with, results](const Ctx& c) {
    S joined = c.dtype(with.front());
    for (const auto& w : with) joined = c10::promoteTypes(joined, c.dtype(w));
    std::vector<S> out;
    for (S d : kEvery)
      if (has(results, c10::promoteTypes(joined, d))) out.push_back(d);
    return out;
  });
}

// The dtypes `alpha` may take for a result dtype: integral results refuse float alpha, and only
// bool results take a bool alpha.
std::vector<K> alpha_dtypes(S result) {
  if (result == S::Bool) return {K::Bool, K::Int};
  if (c10::isIntegralType(result, false)) return {K::Int};
  return {K::Int, K::Float};
}
const char* const kAlphaText = "{int} for an integral result, {bool, int} for bool, {int, float} otherwise";

// What the result dtype of a binary op is, given the promoted dtype of its operands.
enum class Result { Promoted, Floating, Bool };
S result_of(Result r, S promoted) {
  if (r == Result::Bool) return S::Bool;
  if (r == Result::Floating && integral(promoted)) return S::Float;
  return promoted;
}

// An out= tensor: any dtype the result dtype casts to, generated of the result dtype itself (a
// scope); any shape (the kernel resizes it).
ArgSpec out_tensor(std::vector<std::string> inputs, Result r) {
  ArgSpec out = Tensor("out");
  for (const auto& i : inputs) out.deps(i);
  out.dtype(Scope(Eq("the result dtype", [inputs, r](const Ctx& c) { return result_of(r, result_type(c, inputs)); })));
  out.dtype(In("the dtypes the result dtype casts to", [inputs, r](const Ctx& c) {
    S joined = result_type(c, inputs);
    std::vector<S> to;
    for (S d : kEvery)
      if (c10::canCast(result_of(r, joined), d)) to.push_back(d);
    return to;
  }));
  return out;
}

// Integer division (div with a rounding mode, fmod, remainder, floor_divide) by zero is undefined
// by the contract (the CPU kernels raise "ZeroDivisionError", other devices return garbage): zero
// divisors stay out of valid samples when the operands promote to an integral dtype, and invalid
// samples (all-zero divisors) are refused on CPU. `dividend`'s dtype and the divisor's own decide.
Cond nonzero_divisor(std::string dividend, bool mode) {
  return Ne("0 when " + dividend + " and the divisor promote to an integral dtype" +
                (mode ? ", rounding_mode is given" : "") + " and the result has elements",
            [dividend, mode](const Ctx& c) -> std::optional<int64_t> {
              if (mode && c.is_none("rounding_mode")) return std::nullopt;
              if (c.numel(dividend) == 0) return std::nullopt;  // nothing is divided
              if (!is_scalar(c.type()))
                for (int64_t size : c.tensor().shape)
                  if (size == 0) return std::nullopt;
              S joined = is_scalar(c.type()) ? promoted_with(c.dtype(dividend), c.own_scalar_dtype())
                                             : c10::promoteTypes(c.dtype(dividend), c.own_dtype());
              if (integral(joined)) return 0;
              return std::nullopt;
            });
}

// A divisor of a wider integral dtype is cast into the result dtype first, wrapping around, and
// may wrap to zero (-32768 as uint8): divisors stay within the range of an integral result dtype,
// where the rule above says all there is to say.
Cond divisor_within_result() {
  return Scope(fits_dtype("the result dtype when it is integral", [](const Ctx& c) -> std::optional<S> {
    S joined = result_type(c, {"self"}, Typed{c.own_dtype(), c.tensor().shape.empty()});
    if (integral(joined)) return joined;
    return std::nullopt;
  }));
}

// The lowest int32 or int64 dividend divided by -1 overflows, and the x86 kernels of integer
// division die of SIGFPE on it instead of wrapping around as the other integer ops do.
Cond no_lowest_dividend(const std::string& op, bool mode) {
  auto d = deviation(deviation_id(op, "lowest_dividend_by_minus_one"),
      "the lowest int32 or int64 dividend divided by -1 kills the process with SIGFPE (x86 idiv traps on the "
      "overflow) instead of wrapping around as the other integer ops do",
      "ops-fuzz sweep " + op + " --config contract,integral --seed 0 --max 1000",
      {kFloatingPointException});
  return Avoid(d, above_lowest_integer(mode ? " and rounding_mode is given" : "", [mode](const Ctx& c) {
    return !mode || !c.is_none("rounding_mode");
  }));
}

ArgSpec rounding_mode() {
  return StringOpt("rounding_mode").value(In(std::vector<std::string>{"trunc", "floor"}));
}

// The CPU kernels of atan2, hypot, addcdiv, addcmul and lerp have no float16 instance ("...
// not implemented for 'Half'"), though they have a bfloat16 one: a deviation, as for the unary ops.
DeviationRef float16_missing(const std::string& op) {
  return deviation(deviation_id(op, "float16_result"),
      "the CPU kernel is not implemented for a float16 result (\"... not implemented for 'Half'\"), though it is "
      "for bfloat16",
      "ops-fuzz sweep " + op + " --config contract,half --seed 0 --max 300");
}
std::vector<S> but_float16(std::vector<S> results) { return without(results.empty() ? kEvery : std::move(results), S::Half); }

// ---- Family builders ----------------------------------------------------------------------

struct Rules {
  std::vector<S> self = {};    // the dtypes of self (every dtype when empty)
  std::vector<S> other = {};   // the dtypes of other (every dtype when empty)
  std::vector<S> result = {};  // the dtypes the operands may promote to (any when empty)
  bool divides = false;   // integer division: no zero divisors, no lowest dividend
  bool alpha = false;     // Scalar alpha=1 times other
  bool mode = false;      // str? rounding_mode (div): the division rules hold only with a mode
  bool out = false;       // the op has an .out overload
  Result out_result = Result::Promoted;
  bool float16_missing = false;  // no float16 kernel: a deviation
  bool real = false;             // real operands only (it orders them, or is a real function)
  std::optional<Cond> other_value = {};  // one more rule on other's value
};

// Division with a rounding mode rounds real quotients: complex operands are refused then
// ("div_floor_cpu" not implemented for 'ComplexFloat').
Cond real_when_rounding() {
  return NotIn("{complex64, complex128} when rounding_mode is given", [](const Ctx& c) -> std::optional<std::vector<S>> {
    if (c.is_none("rounding_mode")) return std::nullopt;
    return complex_list();
  });
}

// The rules of a tensor operand of every op of a family: complex refused by ordering ops and by
// division with a rounding mode.
ArgSpec& operand_rules(ArgSpec& operand, const Rules& r) {
  if (r.real) operand.dtype(not_complex());
  if (r.mode) operand.deps("rounding_mode").dtype(real_when_rounding());
  return operand;
}

ArgSpec self_tensor(const std::string& op, const Rules& r) {
  ArgSpec self = Tensor("self");
  if (!r.self.empty()) self.dtype(In(r.self));
  operand_rules(self, r);
  // A complex self promotes to a complex result: none when the results are real.
  const bool real_results = !r.result.empty() && std::none_of(r.result.begin(), r.result.end(), c10::isComplexType);
  if (real_results && !r.real && !r.mode) self.dtype(not_complex());
  if (r.divides) self.value(no_lowest_dividend(op, r.mode));
  return self;
}

// op(Tensor self, Tensor other) -> Tensor: pointwise, other broadcast with self, type promotion.
Spec binary(std::string op, Rules r, const char* other_name = "other") {
  const std::string other_arg = other_name;
  ArgSpec other = Tensor(other_arg);
  other.deps("self").size(broadcastable_with({"self"}));
  if (!r.other.empty()) other.dtype(In(r.other));
  operand_rules(other, r);
  if (!r.result.empty()) {
    if (r.mode) {  // div: only a rounding mode refuses a bool result
      other.deps("rounding_mode").dtype(NotIn("{bool} when self is bool and rounding_mode is given", [](const Ctx& c) {
        std::vector<S> out;
        if (!c.is_none("rounding_mode") && c.dtype("self") == S::Bool) out.push_back(S::Bool);
        return out;
      }));
    }
    other.dtype(promotes_into({"self"}, r.result)).rank(ranks_promoting_into({"self"}, r.result));
  }
  if (r.float16_missing) {
    auto d = float16_missing(op);
    other.dtype(Avoid(d, promotes_into({"self"}, but_float16(r.result))))
        .rank(Avoid(d, ranks_promoting_into({"self"}, but_float16(r.result))));
  }
  if (r.divides) other.value(nonzero_divisor("self", r.mode)).value(divisor_within_result());
  Spec s = Spec(op).in(self_tensor(op, r)).in(std::move(other));
  if (r.alpha)
    s.kw(Scalar("alpha").deps("self", other_arg).dtype(In(kAlphaText, [other_arg](const Ctx& c) {
      return alpha_dtypes(c10::promoteTypes(c.dtype("self"), c.dtype(other_arg)));
    })));
  if (r.mode) s.kw(rounding_mode());
  if (r.out) s.out(out_tensor({"self", other_arg}, r.out_result));
  return s;
}

// op(Tensor self, Scalar other) -> Tensor: the .Scalar twin of `binary`; `kinds` are the Scalar
// kinds other may take (all when empty) on top of the promotion rules.
Spec with_scalar(std::string op, Rules r, std::vector<K> kinds = {}, const char* other_name = "other") {
  const std::string other_arg = other_name;
  ArgSpec other = Scalar(other_arg);
  if (!kinds.empty()) other.dtype(In(kinds));
  if (!r.result.empty()) {
    other.deps("self");
    if (r.mode) {
      other.deps("rounding_mode").dtype(NotIn("{bool} when self is bool and rounding_mode is given", [](const Ctx& c) {
        std::vector<K> out;
        if (!c.is_none("rounding_mode") && c.dtype("self") == S::Bool) out.push_back(K::Bool);
        return out;
      }));
    } else {
      other.dtype(In("the kinds that promote with self to " + text(r.result), [results = r.result](const Ctx& c) {
        std::vector<K> out;
        for (K k : {K::Bool, K::Int, K::Float})
          if (has(results, promoted_with(c.dtype("self"), k))) out.push_back(k);
        return out;
      }));
    }
  }
  if (r.divides) other.deps("self").value(nonzero_divisor("self", r.mode));
  if (r.other_value) other.deps("self").value(*r.other_value);
  Spec s = Spec(op).in(self_tensor(op, r)).in(std::move(other));
  if (r.alpha)  // positional in the .Scalar overloads
    s.in(Scalar("alpha").deps("self", other_arg).dtype(In(kAlphaText, [other_arg](const Ctx& c) {
      return alpha_dtypes(promoted_with(c.dtype("self"), c.scalar_dtype(other_arg)));
    })));
  if (r.mode) s.kw(rounding_mode());
  return s;
}

// ---- add, sub, rsub, mul, div -------------------------------------------------------------

// add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
Spec add_tensor() { return binary("add.Tensor", {.alpha = true, .out = true}); }
// add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
Spec add_scalar() { return with_scalar("add.Scalar", {.alpha = true}); }
// sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor: sub refuses bool tensors
// ("Subtraction, the `-` operator, with a bool tensor is not supported").
Spec sub_tensor() { return binary("sub.Tensor", {.self = kNumbers, .other = kNumbers, .alpha = true, .out = true}); }
// sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor: a bool other is a bool tensor too.
Spec sub_scalar() { return with_scalar("sub.Scalar", {.self = kNumbers, .alpha = true}, {K::Int, K::Float}); }
// rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor: other - alpha * self.
Spec rsub_scalar() { return with_scalar("rsub.Scalar", {.self = kNumbers, .alpha = true}, {K::Int, K::Float}); }
// mul.Tensor(Tensor self, Tensor other) -> Tensor
Spec mul_tensor() { return binary("mul.Tensor", {.out = true}); }
// mul.Scalar(Tensor self, Scalar other) -> Tensor
Spec mul_scalar() { return with_scalar("mul.Scalar", {}); }
// div.Tensor(Tensor self, Tensor other) -> Tensor: true division (integers divide as float32); no
// complex32 result ("div_cpu" not implemented for 'ComplexHalf', none declared by its OpInfo).
Spec div_tensor() { return binary("div.Tensor", {.result = kEvery, .out = true, .out_result = Result::Floating}); }
// div.Scalar(Tensor self, Scalar other) -> Tensor
Spec div_scalar() { return with_scalar("div.Scalar", {}); }
// div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor: "trunc" and
// "floor" divide bool operands in no kernel, and integers by zero raise "ZeroDivisionError".
Spec div_tensor_mode() {
  return binary("div.Tensor_mode", {.result = kEvery, .divides = true, .mode = true});
}
// div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor
Spec div_scalar_mode() {
  return with_scalar("div.Scalar_mode", {.result = kEvery, .divides = true, .mode = true});
}

// ---- Comparisons and logical ops: every dtype, a bool result --------------------------------

// eq.Tensor(Tensor self, Tensor other) -> Tensor, and ne alike; lt, le, gt and ge order their
// operands (complex ones are refused: "lt_cpu" not implemented for 'ComplexFloat').
Spec comparison(const char* op, bool ordered) { return binary(op, {.real = ordered}); }
// eq.Scalar(Tensor self, Scalar other) -> Tensor, and ne, lt, le, gt, ge alike.
Spec comparison_scalar(const char* op, bool ordered) { return with_scalar(op, {.real = ordered}); }
Spec eq_tensor() { return comparison("eq.Tensor", false); }
Spec ne_tensor() { return comparison("ne.Tensor", false); }
Spec lt_tensor() { return comparison("lt.Tensor", true); }
Spec le_tensor() { return comparison("le.Tensor", true); }
Spec gt_tensor() { return comparison("gt.Tensor", true); }
Spec ge_tensor() { return comparison("ge.Tensor", true); }
Spec eq_scalar() { return comparison_scalar("eq.Scalar", false); }
Spec ne_scalar() { return comparison_scalar("ne.Scalar", false); }
Spec lt_scalar() { return comparison_scalar("lt.Scalar", true); }
Spec le_scalar() { return comparison_scalar("le.Scalar", true); }
Spec gt_scalar() { return comparison_scalar("gt.Scalar", true); }
Spec ge_scalar() { return comparison_scalar("ge.Scalar", true); }
// logical_and(Tensor self, Tensor other) -> Tensor, and logical_or, logical_xor alike: no complex32
// operands ("logical_and_cpu" not implemented for 'ComplexHalf').
Spec logical(const char* op) { return binary(op, {.result = kEvery, .out = true, .out_result = Result::Bool}); }
Spec logical_and() { return logical("logical_and.default"); }
Spec logical_or() { return logical("logical_or.default"); }
Spec logical_xor() { return logical("logical_xor.default"); }

// ---- Bitwise ops: integral and bool dtypes only ---------------------------------------------

// bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor, and bitwise_or, bitwise_xor alike.
Spec bitwise(const char* op) { return binary(op, {.self = integral_or_bool(), .result = integral_or_bool()}); }
// bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor: a float other would make the result float.
Spec bitwise_scalar(const char* op) { return with_scalar(op, {.self = integral_or_bool(), .result = integral_or_bool()}); }
Spec bitwise_and_tensor() { return bitwise("bitwise_and.Tensor"); }
Spec bitwise_or_tensor() { return bitwise("bitwise_or.Tensor"); }
Spec bitwise_xor_tensor() { return bitwise("bitwise_xor.Tensor"); }
Spec bitwise_and_scalar() { return bitwise_scalar("bitwise_and.Scalar"); }
Spec bitwise_or_scalar() { return bitwise_scalar("bitwise_or.Scalar"); }
Spec bitwise_xor_scalar() { return bitwise_scalar("bitwise_xor.Scalar"); }

// ---- maximum, minimum, atan2, hypot, fmod, remainder, floor_divide --------------------------

// maximum(Tensor self, Tensor other) -> Tensor
Spec maximum() { return binary("maximum.default", {.out = true, .real = true}); }
// minimum(Tensor self, Tensor other) -> Tensor
Spec minimum() { return binary("minimum.default", {.out = true, .real = true}); }
// atan2(Tensor self, Tensor other) -> Tensor: integers compute as float32; real numbers only.
Rules atan2_rules() { return {.out = true, .out_result = Result::Floating, .float16_missing = true, .real = true}; }
Spec atan2() { return binary("atan2.default", atan2_rules()); }
// atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!): the out tensor takes any
// dtype the result casts to (a floating one) and any shape (it is resized to the broadcast shape).
Spec atan2_out() {
  Rules r = atan2_rules();
  r.out = false;
  ArgSpec out = out_tensor({"self", "other"}, Result::Floating);
  return binary("atan2.out", r).kw(std::move(out));
}
// hypot(Tensor self, Tensor other) -> Tensor: floating results only (integers do not compute as float).
Spec hypot() {
  return binary("hypot.default",
                {.result = listed(floating_dtypes()), .out = true, .float16_missing = true});
}
// fmod.Tensor(Tensor self, Tensor other) -> Tensor: no bool kernel.
Spec fmod_tensor() { return binary("fmod.Tensor", {.result = kNumeric, .divides = true}); }
// fmod.Scalar(Tensor self, Scalar other) -> Tensor
Spec fmod_scalar() { return with_scalar("fmod.Scalar", {.result = kNumeric, .divides = true}); }
// remainder.Tensor(Tensor self, Tensor other) -> Tensor: no bool kernel.
Spec remainder_tensor() { return binary("remainder.Tensor", {.result = kNumeric, .divides = true}); }
// remainder.Scalar(Tensor self, Scalar other) -> Tensor
Spec remainder_scalar() {
  return with_scalar("remainder.Scalar", {.result = kNumeric, .divides = true});
}
// floor_divide(Tensor self, Tensor other) -> Tensor: no bool kernel.
Spec floor_divide() {
  return binary("floor_divide.default", {.result = kNumeric, .divides = true, .out = true});
}

// ---- pow ------------------------------------------------------------------------------------

// pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor: no bool kernel; an integral base to
// a negative integral power gives 0 (or ±1 for a base of ±1).
Spec pow_tensor_tensor() { return binary("pow.Tensor_Tensor", {.result = kNumbers}, "exponent"); }
// pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor: an integral or bool self refuses a
// negative integral exponent ("Integers to negative integer powers are not allowed.").
Spec pow_tensor_scalar() {
  Cond no_negative_power = Ge("0 when self is integral or bool and exponent is an int", [](const Ctx& c) -> std::optional<int64_t> {
    if (integral(c.dtype("self")) && c.own_scalar_dtype() == K::Int) return 0;
    return std::nullopt;
  });
  return with_scalar("pow.Tensor_Scalar", {.result = kNumbers, .other_value = no_negative_power}, {},
                     "exponent");
}
// pow.Scalar(Scalar self, Tensor exponent) -> Tensor: no bool kernel (a bool self and a bool
// exponent); an integral base to a negative integral power gives 0 (or ±1).
Spec pow_scalar() {
  return Spec("pow.Scalar")
      .in(Scalar("self"))
      .in(Tensor("exponent").deps("self")
            .dtype(NotIn("{bool} when self is a bool", [](const Ctx& c) {
              std::vector<S> out;
              if (c.scalar_dtype("self") == K::Bool) out.push_back(S::Bool);
              return out;
            })));
}

// ---- Ops of three tensors -------------------------------------------------------------------

// lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor: floating or complex self, end of self's
// dtype; the three broadcast together.
ArgSpec lerp_self(const std::string& op) {
  return Tensor("self")
      .dtype(In(with_complex(listed(floating_dtypes()))))
      .dtype(Avoid(float16_missing(op), NotIn(std::vector{S::Half})));
}
ArgSpec same_dtype_as_self(const char* name, std::vector<std::string> broadcast) {
  ArgSpec a = Tensor(name);
  a.deps("self");
  for (const auto& b : broadcast) a.deps(b);
  return a.dtype(Eq("self.dtype", [](const Ctx& c) { return c.dtype("self"); }))
      .size(broadcastable_with(std::move(broadcast)));
}
Spec lerp_scalar() {
  return Spec("lerp.Scalar")
      .in(lerp_self("lerp.Scalar"))
      .in(same_dtype_as_self("end", {"self"}))
      .in(Scalar("weight"));
}
// lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor: weight of self's dtype too.
Spec lerp_tensor() {
  return Spec("lerp.Tensor")
      .in(lerp_self("lerp.Tensor"))
      .in(same_dtype_as_self("end", {"self"}))
      .in(same_dtype_as_self("weight", {"self", "end"}));
}

// addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor and addcmul:
// self + value * tensor1 (op) tensor2, the three broadcast together; the promoted dtype in
// `results`. addcdiv refuses integral (or bool) tensor1 and tensor2 together ("Integer division
// with addcdiv is no longer supported").
Spec addc(std::string op, std::vector<S> results, bool divides) {
  auto d = float16_missing(op);
  ArgSpec tensor2 = Tensor("tensor2");
  tensor2.deps("self", "tensor1")
      .size(broadcastable_with({"self", "tensor1"}))
      .dtype(promotes_into({"self", "tensor1"}, results))
      .rank(ranks_promoting_into({"self", "tensor1"}, results))
      .dtype(Avoid(d, promotes_into({"self", "tensor1"}, but_float16(results))))
      .rank(Avoid(d, ranks_promoting_into({"self", "tensor1"}, but_float16(results))));
  if (divides)
    tensor2.dtype(In("the floating dtypes when tensor1 is integral or bool", [](const Ctx& c) {
      return integral(c.dtype("tensor1")) ? with_complex(listed(floating_dtypes())) : kEvery;
    }));
  return Spec(std::move(op))
      .in(Tensor("self"))
      .in(Tensor("tensor1").deps("self").size(broadcastable_with({"self"})))
      .in(std::move(tensor2))
      .kw(Scalar("value").deps("self", "tensor1", "tensor2")
            .value(fits_dtype("the result dtype", [](const Ctx& c) -> std::optional<S> {
              return result_type(c, {"self", "tensor1", "tensor2"});
            })))
      .out(out_tensor({"self", "tensor1", "tensor2"}, Result::Promoted));
}
Spec addcdiv() { return addc("addcdiv.default", kEvery, true); }
Spec addcmul() { return addc("addcmul.default", kNumbers, false); }

// ---- masked_fill, where, clamp.Tensor -------------------------------------------------------

// A mask or condition: bool, or uint8 (deprecated, with a warning).
ArgSpec mask_tensor(const char* name, DeviationRef unchecked = nullptr) {
  Cond dtype = In(std::vector{S::Bool, S::Byte});
  ArgSpec a = Tensor(name);
  return a.dtype(unchecked ? Unchecked(std::move(unchecked), std::move(dtype)) : std::move(dtype));
}

// masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor: self and mask broadcast
// together; a uint8 mask holds only 0 and 1 ("Mask tensor can take 0 and 1 values only"); value is
// converted to self's dtype and must fit it ("value cannot be converted to type int8_t without
// overflow").
Spec masked_fill(std::string op, ArgSpec value) {
  auto any_mask = deviation(op + ".non_bool_mask",
      "masked_fill takes masks of every dtype (the documentation asks for a bool mask, uint8 being deprecated) and "
      "reads their elements as bytes",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 300");
  return Spec(std::move(op))
      .in(Tensor("self"))
      .in(mask_tensor("mask", any_mask).deps("self")
            .size(broadcastable_with({"self"}))
            .value(Be("[0, 1] when self and mask have elements", [](const Ctx& c) -> std::optional<std::vector<double>> {
              if (c.numel("self") == 0) return std::nullopt;
              for (int64_t size : c.tensor().shape)
                if (size == 0) return std::nullopt;
              return std::vector<double>{0, 1};
            })))
      .in(std::move(value));
}
Spec masked_fill_scalar() {
  return masked_fill("masked_fill.Scalar", Scalar("value").deps("self")
      .value(fits_dtype("self.dtype", [](const Ctx& c) -> std::optional<S> { return c.dtype("self"); })));
}

// The values an integral dtype takes from a Scalar without overflow: its range (uint8 also takes
// negative integers, which wrap around, but no negative float).
std::vector<double> fitting(S t, bool from_float) {
  auto range = [](auto lowest, auto highest) {
    return std::vector<double>{static_cast<double>(lowest), static_cast<double>(highest)};
  };
  switch (t) {
    case S::Byte: return {from_float ? 0.0 : -255.0, 255.0};
    case S::Char: return range(INT8_MIN, INT8_MAX);
    case S::Short: return range(INT16_MIN, INT16_MAX);
    case S::Int: return range(INT32_MIN, INT32_MAX);
    default: return {-9223372036854775808.0, 9223372036854774784.0};  // the largest double below 2^63
  }
}

// masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor: value is a 0-dim tensor of
// any dtype whose element must fit self's dtype. The rule is exact for integral values (float16
// holds integers up to 65504; bfloat16 and wider floats hold every int64); floating values are kept
// by a scope inside self's range after rounding to value.dtype (an integral self takes no NaN or
// infinity, a floating one no finite value past its range, though it takes NaN and infinities), so
// only integral values break the rule in invalid samples.
Spec masked_fill_tensor() {
  ArgSpec value = Tensor("value");
  no_imaginary_part_lost(value.deps("self"), "self");
  return masked_fill("masked_fill.Tensor", value
      .rank(Eq(0))
      .value(Be("the range of self.dtype when value is integral", [](const Ctx& c) -> std::optional<std::vector<double>> {
        S t = c.dtype("self"), v = c.own_dtype();
        if (!integral(v) || v == S::Bool) return std::nullopt;
        std::vector<double> fits;
        if (t == S::Half) fits = {-65504.0, 65504.0};
        else if (c10::isIntegralType(t, false)) fits = fitting(t, false);
        else return std::nullopt;  // a bool, bfloat16, float32 or float64 self takes every integer
        auto own = fitting(v, false);
        if (v == S::Byte) own[0] = 0;
        if (own[0] >= fits[0] && own[1] <= fits[1]) return std::nullopt;  // every value fits
        return fits;
      }))
      .value(Scope(Be("the range of self.dtype, rounded in value.dtype, when value is floating or complex",
                      [](const Ctx& c) -> std::optional<std::vector<double>> {
        S t = c.dtype("self"), v = c.own_dtype();
        if (!c10::isFloatingType(v) && !c10::isComplexType(v)) return std::nullopt;
        switch (t) {
          // bool takes any value; float64 and complex128 parts hold every value of any dtype
          case S::Bool: case S::Double: case S::ComplexDouble: return std::nullopt;
          case S::Half: return std::vector<double>{-65504.0, 65504.0};
          case S::BFloat16: return std::vector<double>{-3.3895313892515355e38, 3.3895313892515355e38};
          case S::Float: case S::ComplexFloat: return std::vector<double>{-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
          default: {
            auto fits = fitting(t, true);
            fits[1] -= fits[1] / 128;  // below the float16/bfloat16/float32 rounding of the highest value
            return fits;
          }
        }
      }))));
}

// where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
Spec where_self() {
  return Spec("where.self")
      .in(mask_tensor("condition"))
      .in(Tensor("self").deps("condition")
            .size(broadcastable_with({"condition"})))
      .in(Tensor("other").deps("condition", "self")
            .size(broadcastable_with({"condition", "self"})));
}

// Broadcastable with the tensors `args` that are given (an optional one may be None).
Cond broadcastable_with_given(std::vector<std::string> args) {
  std::vector<Cond> by_mask;  // one condition per subset of args given, indexed by bit mask
  for (size_t m = 0; m < (1u << args.size()); ++m) {
    std::vector<std::string> given;
    for (size_t i = 0; i < args.size(); ++i)
      if (m & (1u << i)) given.push_back(args[i]);
    by_mask.push_back(given.empty() ? Cond{} : broadcastable_with(given));
  }
  Cond all = broadcastable_with(args);
  all.fn = [args, by_mask](const Ctx& c) -> std::optional<Operand> {
    size_t m = 0;
    for (size_t i = 0; i < args.size(); ++i)
      if (!c.is_none(args[i])) m |= 1u << i;
    if (m == 0) return std::nullopt;
    return by_mask[m].fn(c);
  };
  return all;
}

// clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor: min or max is given;
// the three broadcast together and promote.
Spec clamp_tensor() {
  auto bool_half = deviation("clamp.Tensor.bool_half_result",
      "clamp.Tensor refuses a bool or float16 promoted dtype when both min and max are given (\"clamp_cpu\" not "
      "implemented) and takes it when only one is",
      "ops-fuzz sweep clamp.Tensor --config contract,half --seed 0 --max 300");
  // Complex numbers have no order ("clamp is not supported for complex types").
  return Spec("clamp.Tensor")
      .in(Tensor("self")
            .dtype(not_complex()))
      .in(TensorOpt("min").deps("self")
            .dtype(not_complex())
            .size(broadcastable_with({"self"})))
      .in(TensorOpt("max").deps("self", "min")
            .dtype(not_complex())
            .optional(Named("min or max is given", Eq("False when min is None", [](const Ctx& c) -> std::optional<bool> {
              if (c.is_none("min")) return false;
              return std::nullopt;
            })))
            .dtype(Avoid(bool_half, NotIn("the dtypes that promote with self and min to {bool, float16} when min is given",
                                          [](const Ctx& c) {
              std::vector<S> out;
              if (c.is_none("min")) return out;
              S joined = c10::promoteTypes(c.dtype("self"), c.dtype("min"));
              for (S d : kEvery)
                if (S p = c10::promoteTypes(joined, d); p == S::Bool || p == S::Half) out.push_back(d);
              return out;
            })))
            .rank(Avoid(bool_half, In("the ranks at which it promotes with self and min to neither bool nor float16 "
                                      "when min is given", [](const Ctx& c) -> std::optional<std::vector<int64_t>> {
              if (c.is_none("min")) return std::nullopt;
              return ranks_into(c, {"self", "min"}, without(kNumeric, S::Half));
            })))
            .size(broadcastable_with_given({"self", "min"})));
}

}  // namespace

std::span<const SpecFn> binary_specs() {
  static constexpr SpecFn table[] = {
      add_tensor, add_scalar, sub_tensor, sub_scalar, rsub_scalar, mul_tensor, mul_scalar,
      div_tensor, div_scalar, div_tensor_mode, div_scalar_mode,
      eq_tensor, ne_tensor, lt_tensor, le_tensor, gt_tensor, ge_tensor,
      eq_scalar, ne_scalar, lt_scalar, le_scalar, gt_scalar, ge_scalar,
      logical_and, logical_or, logical_xor,
      bitwise_and_tensor, bitwise_or_tensor, bitwise_xor_tensor,
      bitwise_and_scalar, bitwise_or_scalar, bitwise_xor_scalar,
      maximum, minimum, atan2, atan2_out, hypot,
      fmod_tensor, fmod_scalar, remainder_tensor, remainder_scalar, floor_divide,
      pow_tensor_tensor, pow_tensor_scalar, pow_scalar,
      lerp_scalar, lerp_tensor, addcdiv, addcmul,
      masked_fill_scalar, masked_fill_tensor, where_self, clamp_tensor,
  };
  return table;
}

}  // namespace opsfuzz::db
