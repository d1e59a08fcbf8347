#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

// The dtypes of the contracts below.
const std::vector<S> kIntegralAndBool = listed(integral_and_bool_dtypes());
// Numbers: not bool, which takes no arithmetic (neg, abs, rounding, relu, hardtanh).
const std::vector<S> kNumbers = listed(numeric_dtypes());
const std::vector<S> kFloating = listed(floating_dtypes());

// The self of a pointwise op: of `dtypes` (every dtype when empty, but complex ones when the
// contract refuses them), and without float16 when the CPU kernel lacks it (a deviation of `op`).
ArgSpec pointwise_self(const std::string& op, std::vector<S> dtypes, CpuFloat16 float16,
                       Complex complex = Complex::Taken) {
  ArgSpec self = Tensor("self");
  if (!dtypes.empty()) self.dtype(In(std::move(dtypes)));
  else if (complex == Complex::Refused) self.dtype(not_complex());
  if (float16 == CpuFloat16::Missing) {
    auto missing = deviation(deviation_id(op, "float16_self"),
        "the CPU kernel is not implemented for float16 self (\"... not implemented for 'Half'\"), though it "
        "is for bfloat16",
        "ops-fuzz sweep " + op + " --config contract,half --seed 0 --max 100");
    self.dtype(Avoid(missing, NotIn(std::vector{S::Half})));
  }
  return self;
}
}  // namespace

std::vector<S> with_complex(std::vector<S> dtypes) {
  dtypes.insert(dtypes.end(), complex_dtypes().begin(), complex_dtypes().end());
  return dtypes;
}

ArgSpec& no_imaginary_part_lost(ArgSpec& value, const std::string& into) {
  auto real_into = [into](const Ctx& c) {
    const S t = c.dtype(into);
    return !c10::isComplexType(t) && t != S::Bool;
  };
  value.dtype(NotIn("{complex64, complex128} when " + into + " is neither complex nor bool",
                    [real_into](const Ctx& c) -> std::optional<std::vector<S>> {
                      if (!real_into(c)) return std::nullopt;
                      return complex_list();
                    }));
  return value.value(Scope(Ne("0 when complex and " + into + " is neither complex nor bool",
                              [real_into](const Ctx& c) -> std::optional<double> {
                                if (!c10::isComplexType(c.own_dtype()) || !real_into(c)) return std::nullopt;
                                return 0.0;
                              })));
}

Spec unary_pointwise(std::string op, std::vector<c10::ScalarType> dtypes, CpuFloat16 float16, Complex complex) {
  ArgSpec self = pointwise_self(op, std::move(dtypes), float16, complex);
  return Spec(std::move(op)).in(std::move(self));
}

namespace {

// Float-result math functions: self of every dtype, bool and integral self promoted to the
// default float dtype. Their CPU kernels have no float16 path. Some are functions of real numbers
// only (erf, expm1, log1p, logit: no complex kernel, none declared by PyTorch's OpInfos).
Spec float_math(std::string op, Complex complex = Complex::Taken) {
  return unary_pointwise(std::move(op), {}, CpuFloat16::Missing, complex);
}
// Rounding (ceil, floor, round, trunc): numbers; an integral self is returned as it is.
Spec rounding(std::string op) { return unary_pointwise(std::move(op), kNumbers, CpuFloat16::Missing); }
// Activations defined on floating self only.
Spec activation(std::string op) { return unary_pointwise(std::move(op), kFloating, CpuFloat16::Missing); }

Spec acos() { return float_math("acos.default"); }
Spec acosh() { return float_math("acosh.default"); }
Spec asin() { return float_math("asin.default"); }
Spec asinh() { return float_math("asinh.default"); }
Spec atan() { return float_math("atan.default"); }
Spec atanh() { return float_math("atanh.default"); }
Spec cos() { return float_math("cos.default"); }
Spec cosh() { return float_math("cosh.default"); }
Spec sin() { return float_math("sin.default"); }
Spec sinh() { return float_math("sinh.default"); }
Spec tan() { return float_math("tan.default"); }
Spec tanh() { return float_math("tanh.default"); }
Spec erf() { return float_math("erf.default", Complex::Refused); }
Spec erfinv() { return float_math("erfinv.default", Complex::Refused); }
Spec exp() { return float_math("exp.default"); }
Spec expm1() { return float_math("expm1.default", Complex::Refused); }
Spec log() { return float_math("log.default"); }
Spec log10() { return float_math("log10.default"); }
Spec log1p() { return float_math("log1p.default", Complex::Refused); }
Spec log2() { return float_math("log2.default"); }
Spec rsqrt() { return float_math("rsqrt.default"); }
Spec sqrt() { return float_math("sqrt.default"); }
Spec sigmoid() { return float_math("sigmoid.default"); }
// reciprocal(Tensor self) -> Tensor: float result, with a float16 kernel
Spec reciprocal() { return unary_pointwise("reciprocal.default"); }
// logit(Tensor self, float? eps=None) -> Tensor: self clamped to [eps, 1 - eps] when eps is given
Spec logit() {
  return float_math("logit.default", Complex::Refused).in(FloatOpt("eps"));
}

Spec ceil() { return rounding("ceil.default"); }
Spec floor() { return rounding("floor.default"); }
Spec round() { return rounding("round.default"); }
Spec trunc() { return rounding("trunc.default"); }

// The result of self's dtype (or bool). neg and abs of the lowest value of a signed integral
// dtype wrap around to it, as integer arithmetic does throughout.
Spec neg() { return unary_pointwise("neg.default", with_complex(kNumbers)); }
Spec abs() { return unary_pointwise("abs.default", with_complex(kNumbers)); }
// sign(Tensor self) -> Tensor: real numbers (sgn is the complex sign)
Spec sign() { return unary_pointwise("sign.default", {}, CpuFloat16::Present, Complex::Refused); }
Spec bitwise_not() { return unary_pointwise("bitwise_not.default", kIntegralAndBool); }
Spec logical_not() { return unary_pointwise("logical_not.default"); }
Spec isnan() { return unary_pointwise("isnan.default"); }
Spec isinf() { return unary_pointwise("isinf.default"); }
Spec isfinite() { return unary_pointwise("isfinite.default"); }
// nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor
// (an integral or bool self is returned as it is; no complex kernel, none declared by its OpInfo)
Spec nan_to_num() {
  return unary_pointwise("nan_to_num.default", {}, CpuFloat16::Present, Complex::Refused).in(FloatOpt("nan")).in(FloatOpt("posinf")).in(FloatOpt("neginf"));
}

// relu(Tensor self) -> Tensor: numbers ("Boolean inputs not supported for relu")
Spec relu() { return unary_pointwise("relu.default", kNumbers, CpuFloat16::Missing); }
// silu(Tensor self) -> Tensor: complex self too (x * sigmoid(x)).
Spec silu() { return unary_pointwise("silu.default", with_complex(kFloating), CpuFloat16::Missing); }
Spec hardswish() { return activation("hardswish.default"); }
// gelu(Tensor self, *, str approximate="none") -> Tensor
Spec gelu() {
  return activation("gelu.default").kw(String("approximate").value(In(std::vector<std::string>{"none", "tanh"})));
}
// leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor
Spec leaky_relu() {
  return activation("leaky_relu.default").in(Scalar("negative_slope"));
}
// elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor
Spec elu() {
  return activation("elu.default").in(Scalar("alpha")).in(Scalar("scale")).in(Scalar("input_scale"));
}
// softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor
Spec softplus() {
  return activation("softplus.default").in(Scalar("beta")).in(Scalar("threshold"));
}
// glu(Tensor self, int dim=-1) -> Tensor: self halved along dim ("glu does not support
// 0-dimensional tensors", "Halving dimension must be even")
Spec glu() {
  Term dims = ite(rank("self") == 0, 1, rank("self"));  // as dim_of: a 0-dim self has one dim
  return Spec("glu.default")
      .in(pointwise_self("glu.default", kFloating, CpuFloat16::Missing)
            .rank(Ge(1)))
      .in(Dim("dim").deps("self"))
      // Both rules are joint, so that the solver keeps an even size along some dim of self.
      .joint("dim in [-self.rank, self.rank)", value("dim") >= -dims && value("dim") < dims)
      .joint("self.size(dim) % 2 == 0", rank("self") == 0 || size("self", value("dim")) % 2 == 0);
}

// The range of an integral dtype (uint8 from 0).
std::pair<double, double> integral_range(c10::ScalarType t) {
  switch (t) {
    case S::Byte: return {0, 255};
    case S::Char: return {-128, 127};
    case S::Short: return {-32768, 32767};
    case S::Int: return {-2147483648.0, 2147483647.0};
    default: return {-9223372036854775808.0, 9223372036854775807.0};
  }
}

// hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor
// Numbers ("Bool inputs not supported for hardtanh"). An integral self takes the limits
// truncated toward zero, which must fit its dtype ("value cannot be converted to type int8_t
// without overflow"; for uint8 "cannot do hardtanh on an unsigned type with negative limits").
// min_val > max_val is allowed (every element becomes max_val).
Spec hardtanh() {
  auto bound = [](const Ctx& c, int side) -> std::optional<double> {
    auto t = c.dtype("self");
    if (!c10::isIntegralType(t, false) || c.own_scalar_dtype() == ScalarDtype::Bool) return std::nullopt;
    auto [lo, hi] = integral_range(t);
    return side < 0 ? lo - 1 : hi + 1;
  };
  auto limit = [bound](const char* name) {
    return Scalar(name).deps("self")
        .value(Gt("the least value of an integral self.dtype - 1", [bound](const Ctx& c) { return bound(c, -1); }))
        .value(Lt("the greatest value of an integral self.dtype + 1", [bound](const Ctx& c) { return bound(c, 1); }));
  };
  return unary_pointwise("hardtanh.default", kNumbers, CpuFloat16::Missing).in(limit("min_val")).in(limit("max_val"));
}

// clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor, clamp_min(Tensor self,
// Scalar min) -> Tensor, clamp_max(Tensor self, Scalar max) -> Tensor: the result takes the
// dtype self promotes to with the bounds given, which must not be bool (there is no bool clamp:
// "clamp_min_cpu" not implemented for 'Bool'); a bool self with an int or float bound is clamped
// as int64 or float.
// The bounds are converted to an integral result dtype, which they must fit.
bool is_bool_or_none(const Ctx& c, std::string_view bound) {
  return c.is_none(bound) || c.scalar_dtype(bound) == ScalarDtype::Bool;
}
bool is_float(const Ctx& c, std::string_view bound) {
  return !c.is_none(bound) && c.scalar_dtype(bound) == ScalarDtype::Float;
}
c10::ScalarType result_without_float_bounds(const Ctx& c) {
  return c.dtype("self") == S::Bool ? S::Long : c.dtype("self");
}
// Complex numbers have no order: "clamp is not supported for complex types".
Spec clamp_bound(std::string op, const char* bound) {
  return unary_pointwise(std::move(op), {}, CpuFloat16::Missing, Complex::Refused)
      .in(Scalar(bound).deps("self")
            .dtype(Ne("bool when self is bool", [](const Ctx& c) -> std::optional<ScalarDtype> {
              if (c.dtype("self") != S::Bool) return std::nullopt;
              return ScalarDtype::Bool;
            }))
            .value(fits_dtype("the result dtype (self.dtype, or int64 for a bool self; none when " + std::string(bound) + " is float)",
                              [](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.own_scalar_dtype() == ScalarDtype::Float) return std::nullopt;
              return result_without_float_bounds(c);
            })));
}
Spec clamp_min() { return clamp_bound("clamp_min.default", "min"); }
Spec clamp_max() { return clamp_bound("clamp_max.default", "max"); }
// min fits the result only when max is not float, and max is solved after min: min is kept
// inside self.dtype's range (a scope), and max states the rule.
Spec clamp() {
  return unary_pointwise("clamp.default", {}, CpuFloat16::Missing, Complex::Refused)
      .in(ScalarOpt("min").deps("self")
            .value(Scope(fits_dtype("self.dtype (int64 for a bool self) unless min is float", [](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.own_scalar_dtype() == ScalarDtype::Float) return std::nullopt;
              return result_without_float_bounds(c);
            }))))
      .in(ScalarOpt("max").deps("self", "min")
            .optional(Named("min or max is given", Eq("False when min is None", [](const Ctx& c) -> std::optional<bool> {
              if (c.is_none("min")) return false;
              return std::nullopt;
            })))
            .optional(Named("max is given when self and min are bool", Eq("False then", [](const Ctx& c) -> std::optional<bool> {
              if (c.dtype("self") == S::Bool && is_bool_or_none(c, "min")) return false;
              return std::nullopt;
            })))
            .dtype(Ne("bool when self is bool and min is bool or None", [](const Ctx& c) -> std::optional<ScalarDtype> {
              if (c.dtype("self") != S::Bool || !is_bool_or_none(c, "min")) return std::nullopt;
              return ScalarDtype::Bool;
            }))
            .value(fits_dtype("the result dtype (self.dtype, or int64 for a bool self; none when min or max is float)",
                              [](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.own_scalar_dtype() == ScalarDtype::Float || is_float(c, "min")) return std::nullopt;
              return result_without_float_bounds(c);
            })));
}

}  // namespace

std::span<const SpecFn> unary_specs() {
  static constexpr SpecFn table[] = {
      clamp, clamp_min, clamp_max, neg, abs, sign, bitwise_not, logical_not, isnan, isinf, isfinite, nan_to_num,
      acos, acosh, asin, asinh, atan, atanh, cos, cosh, sin, sinh, tan, tanh, erf, erfinv, exp, expm1,
      log, log10, log1p, log2, rsqrt, sqrt, sigmoid, reciprocal, logit, ceil, floor, round, trunc,
      relu, silu, hardswish, gelu, leaky_relu, elu, softplus, glu, hardtanh};
  return table;
}

}  // namespace opsfuzz::db
