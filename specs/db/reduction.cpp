#include "specs/db/families.h"

#include <algorithm>
#include <cmath>

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

const std::vector<S> kFloating(floating_dtypes().begin(), floating_dtypes().end());
// Floating and complex: the dtypes of a mean, a variance or a norm.
const std::vector<S> kInexact = with_complex(kFloating);

// How a reduction names the dims it reduces.
enum class Dims {
  All,      // no dim argument: every dim
  One,      // int dim
  OneOpt,   // int? dim: None reduces every dim
  List,     // int[1] dim: [] reduces every dim
  ListOpt,  // int[1]? dim: None or [] reduces every dim
};

// The out= tensor of an op's .out overload, by its dtype.
enum class Out {
  None,    // no .out overload with these arguments
  Result,  // the result dtype: dtype when given, else self's (integral self into int64 with a dtype argument)
  Self,    // self's dtype
  Long,    // int64 indices
  Any,     // any's: uint8 for uint8 self, else bool
  Float,   // self's dtype when floating, else float32
};

struct Reduce {
  Dims dims = Dims::All;
  bool keepdim = false;          // bool keepdim=False after dim
  bool dtype = false;            // *, ScalarType? dtype=None: the result's dtype, self cast to it
  std::vector<S> refused{};      // result dtypes (dtype, else self's) the kernel does not implement
  bool identity = true;          // false: the reduced dims must have elements
  bool floating_result = false;  // the result's dtype (dtype, else self's) is floating or complex
  std::vector<Cond> dim_length{};  // more conditions on len(dim)
  bool size_one_returns = false;   // a reduced dim of size 1 returns before the dtype is checked
  bool checked_zero_dim_cast = false;  // a zero-dim self is cast into dtype with a check (a deviation)
  Out out = Out::None;             // the op's .out overload
};

// The dims of self, in both spellings, of size zero (a zero-dim self has one element). The rule
// excludes them rather than listing the others, so that a dim out of range still breaks only the
// range rule.
std::vector<int64_t> dims_without_elements(const Ctx& c) {
  int64_t r = c.rank("self");
  std::vector<int64_t> out;
  for (int64_t d = 0; d < r; ++d)
    if (c.size("self", d) == 0) out.push_back(d), out.push_back(d - r);
  return out;
}

std::optional<bool> given_when_self_is_empty(const Ctx& c) {
  if (c.numel("self") == 0) return false;
  return std::nullopt;
}

// Tensor self, cast to `dtype` when the op has one: float values cast to an integral dtype
// outside its range are undefined, so they stay out of the samples.
ArgSpec reduced_self(bool dtype_arg) {
  ArgSpec self = Tensor("self");
  if (dtype_arg) self.deps("dtype").value(Scope(casts_into("dtype", the_dtype)));
  return self;
}

// The dtypes in `dtypes`, as a set's text: "{float16, bfloat16}".
std::string set_text(const std::vector<S>& dtypes) {
  std::string t;
  for (S d : dtypes) t += (t.empty() ? "" : ", ") + std::string(name(d));
  return "{" + t + "}";
}

// The dtype a reduction computes in: dtype when given, else self's (integral and bool self
// accumulate into int64 when the op takes a dtype).
S result_dtype(const Ctx& c, bool dtype_arg, S self) {
  if (dtype_arg && !c.is_none("dtype")) return *the_dtype(c);
  return dtype_arg && is_integral(self, true) ? S::Long : self;
}

bool in(const std::vector<S>& set, S t) { return std::find(set.begin(), set.end(), t) != set.end(); }

// Tensor(a!) out of dtype `o`; any shape, which the kernel resizes.
ArgSpec out_tensor(Out o, bool dtype_arg) {
  ArgSpec out = Tensor("out").deps("self");
  if (dtype_arg) out.deps("dtype");
  switch (o) {
    case Out::None: break;
    case Out::Result:
      return out.dtype(Eq("the result dtype", [dtype_arg](const Ctx& c) { return result_dtype(c, dtype_arg, c.dtype("self")); }));
    case Out::Self: return out.dtype(Eq("self.dtype", [](const Ctx& c) { return c.dtype("self"); }));
    case Out::Long: return out.dtype(Eq(S::Long));
    case Out::Float:
      return out.dtype(Eq("self.dtype when floating, else float32", [](const Ctx& c) {
        return is_floating(c.dtype("self")) ? c.dtype("self") : S::Float;
      }));
    case Out::Any:
      return out.dtype(Eq("uint8 for uint8 self, else bool", [](const Ctx& c) { return c.dtype("self") == S::Byte ? S::Byte : S::Bool; }));
  }
  return out;
}

// Without an identity, the dims a reduction names must have elements: an empty self keeps one dim
// with elements, so that a valid dim exists (a scope; the rule, on dim, is what invalid samples break).
Cond a_dim_with_elements() {
  return Scope(Ge("1 at the last dim when every dim before it is 0", [](const Ctx& c) -> std::optional<int64_t> {
    const IntList& before = c.solved();
    if (c.dim() != c.rank() - 1 || std::any_of(before.begin(), before.end(), [](int64_t n) { return n != 0; }))
      return std::nullopt;
    return 1;
  }));
}

// The dim argument of a reduction that reduces `r.dims`. Without an identity, the reduced dims
// must have elements: always, or only where `no_identity` (read as `when`) holds.
ArgSpec reduced_dims(const Reduce& r, std::string when = "", std::function<bool(const Ctx&)> no_identity = nullptr) {
  const bool one = r.dims == Dims::One || r.dims == Dims::OneOpt;
  ArgSpec dim = r.dims == Dims::One ? Dim("dim") : r.dims == Dims::OneOpt ? DimOpt("dim")
              : r.dims == Dims::List ? DimList("dim") : DimListOpt("dim");
  dim.deps("self");
  if (!one) dim.length(Le("self.rank", [](const Ctx& c) { return dim_rank(c, "self"); }));
  dim.value(dim_of("self"));
  if (!one) dim.value(unique_dim_of("self"));
  if (r.identity) return dim;
  // No identity: a reduction over no elements has no value.
  auto applies = [no_identity](const Ctx& c) { return !no_identity || no_identity(c); };
  dim.value(Named((one ? "self.size(dim) >= 1" : "self.size(dim[i]) >= 1") + when,
                  NotIn("the dims of self without elements", [applies](const Ctx& c) -> std::optional<std::vector<int64_t>> {
                    if (!applies(c)) return std::nullopt;
                    return dims_without_elements(c);
                  })));
  if (r.dims == Dims::OneOpt || r.dims == Dims::ListOpt)
    dim.optional(Named("dim is given when self has no elements" + when,
                       Eq("False when self is empty", [applies](const Ctx& c) -> std::optional<bool> {
                         if (!applies(c)) return std::nullopt;
                         return given_when_self_is_empty(c);
                       })));
  if (!one)
    dim.length(Named("len(dim) >= 1 when self has no elements" + when,
                     Ge("1 when self is empty", [applies](const Ctx& c) -> std::optional<int64_t> {
                       if (c.numel("self") == 0 && applies(c)) return 1;
                       return std::nullopt;
                     })));
  return dim;
}

// A zero-dim self is copied into the result through a Scalar, whose checked conversion refuses
// values that do not fit dtype ("value cannot be converted to type int8_t without overflow"),
// while a self with dims is cast as the contract says (integers wrap around): a deviation. A
// complex value cast to a real dtype loses its imaginary part, which the check refuses as well.
void checked_zero_dim_cast(ArgSpec& self, const std::string& op) {
  auto d = deviation(deviation_id(op, "zero_dim_checked_cast"),
      "a zero-dim self whose values do not fit dtype (or a complex one, cast to a real dtype) is refused (\"value "
      "cannot be converted to type ... without overflow\"), though a self with dims is cast into dtype, wrapping "
      "around",
      "ops-fuzz sweep " + op + " --config contract,integral --seed 0 --max 1000");
  self.rank(Avoid(d, Ge("1 when self is complex and dtype is real", [](const Ctx& c) -> std::optional<int64_t> {
    const std::optional<S> t = the_dtype(c);
    if (!t || !c10::isComplexType(c.own_dtype()) || c10::isComplexType(*t)) return std::nullopt;
    return 1;
  })));
  self.value(Avoid(d, fits_dtype("dtype when self is zero-dim", [](const Ctx& c) -> std::optional<S> {
    if (!c.tensor().shape.empty()) return std::nullopt;
    return the_dtype(c);
  })));
}

// op(Tensor self[, dim][, bool keepdim][, *, ScalarType? dtype]) -> Tensor: reduces the dims
// `r.dims` names.
Spec reduction(std::string op, Reduce r) {
  Spec s(std::move(op));
  ArgSpec self = reduced_self(r.dtype);
  if (r.checked_zero_dim_cast) checked_zero_dim_cast(self, s.op());
  if (!r.refused.empty() && !r.dtype) self.dtype(NotIn(r.refused));
  // With dtype None, integral and bool self accumulate into int64.
  std::vector<S> self_refused;
  for (S d : r.refused)
    if (!is_integral(d, true)) self_refused.push_back(d);
  if (!self_refused.empty() && r.dtype)
    self.dtype(NotIn(set_text(self_refused) + " when dtype is None", [self_refused](const Ctx& c) -> std::optional<std::vector<S>> {
      if (c.is_none("dtype")) return self_refused;
      return std::nullopt;
    }));
  if (r.floating_result) {
    // mean: the result's dtype is dtype when given, else self's, and it must be floating or complex.
    self.dtype(In("the floating and complex dtypes when dtype is None", [](const Ctx& c) -> std::optional<std::vector<S>> {
      if (c.is_none("dtype")) return kInexact;
      return std::nullopt;
    }));
  }
  if (r.dims == Dims::All && !r.identity) self.size(Ge(1));
  if (r.dims != Dims::All && !r.identity) self.size(a_dim_with_elements());
  if (!r.refused.empty()) {
    // A zero-dim or empty self returns before the kernel checks its dtype.
    auto refused = [refused = r.refused, d = r.dtype](const Ctx& c) -> std::optional<int64_t> {
      if (in(refused, result_dtype(c, d, c.own_dtype()))) return 1;
      return std::nullopt;
    };
    self.rank(Scope(Ge("1 when its result dtype is refused", refused)));
    self.size(Scope(Ge("1 when its result dtype is refused", refused)));
  }
  s.in(std::move(self));
  if (r.dims != Dims::All) {
    ArgSpec dim = reduced_dims(r);
    for (const Cond& c : r.dim_length) dim.length(c);
    if (r.size_one_returns) {
      if (r.dtype) dim.deps("dtype");
      dim.value(Scope(NotIn("the dims of self of size 1 when the result dtype is refused",
                            [refused = r.refused, d = r.dtype](const Ctx& c) -> std::optional<std::vector<int64_t>> {
        if (!in(refused, result_dtype(c, d, c.dtype("self")))) return std::nullopt;
        std::vector<int64_t> ones;
        for (int64_t k = 0; k < c.rank("self"); ++k)
          if (c.size("self", k) == 1) ones.push_back(k), ones.push_back(k - c.rank("self"));
        return ones;
      })));
    }
    s.in(std::move(dim));
  }
  if (r.keepdim) s.in(Bool("keepdim"));
  if (r.dtype) {
    ArgSpec dtype = ScalarTypeOpt("dtype");
    if (r.floating_result) dtype.value(In(kInexact));
    if (!r.refused.empty()) dtype.value(NotIn(r.refused));
    s.kw(std::move(dtype));
  }
  if (r.out != Out::None) s.out(out_tensor(r.out, r.dtype));
  return s;
}

// _softmax(Tensor self, int dim, bool half_to_float) -> Tensor, and _log_softmax.
Spec softmax_kernel(std::string op) {
  return Spec(std::move(op))
      .in(Tensor("self")
            .dtype(In(std::vector{S::Float, S::Double, S::BFloat16}))
            // An empty tensor returns before its dtype is checked.
            .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
              auto t = c.own_dtype();
              return t == S::Float || t == S::Double || t == S::BFloat16 ? 0 : 1;
            }))))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Bool("half_to_float")
            .value(Named("half_to_float is False on CPU", Eq(false))))
      .out(out_tensor(Out::Self, false));
}

// softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor, and log_softmax.int:
// self is cast to dtype when given, and the kernel takes float32, float64 and bfloat16.
Spec softmax(std::string op) {
  return Spec(std::move(op))
      .in(reduced_self(true)
            // An empty self returns before its dtype is checked.
            .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) {
              auto t = c.is_none("dtype") ? c.own_dtype() : *the_dtype(c);
              return t == S::Float || t == S::Double || t == S::BFloat16 ? 0 : 1;
            })))
            .dtype(In("{float32, float64, bfloat16} when dtype is None", [](const Ctx& c) -> std::optional<std::vector<S>> {
              if (c.is_none("dtype")) return std::vector{S::Float, S::Double, S::BFloat16};
              return std::nullopt;
            })))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(ScalarTypeOpt("dtype")
            .value(In(std::vector{S::Float, S::Double, S::BFloat16})));
}

// Complex numbers have no order; a zero-dim self is returned before its dtype is checked.
ArgSpec ordered_self() {
  return Tensor("self")
      .dtype(not_complex())
      .rank(Scope(Ge("1 when self is complex", [](const Ctx& c) { return c10::isComplexType(c.own_dtype()) ? 1 : 0; })));
}

// sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices), and argsort.
Spec sort_like(std::string op) {
  return Spec(std::move(op))
      .in(ordered_self())
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Bool("descending"));
}

// var.correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor,
// and std.correction; var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False).
Spec variance(std::string op, bool correction) {
  Spec s(std::move(op));
  s.in(Tensor("self")
         .dtype(In(kInexact)))
      .in(reduced_dims({.dims = Dims::ListOpt}));
  if (correction) s.kw(IntOpt("correction")).kw(Bool("keepdim"));
  else s.in(Bool("unbiased")).in(Bool("keepdim")).out(out_tensor(Out::Self, false));
  return s;
}

// sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
Spec sum() { return reduction("sum.default", {.dtype = true, .out = Out::Result}); }
// sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
Spec sum_dim() { return reduction("sum.dim_IntList", {.dims = Dims::ListOpt, .keepdim = true, .dtype = true}); }
// mean(Tensor self, *, ScalarType? dtype=None) -> Tensor
Spec mean() { return reduction("mean.default", {.dtype = true, .floating_result = true}); }
// mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
Spec mean_dim() {
  return reduction("mean.dim", {.dims = Dims::ListOpt, .keepdim = true, .dtype = true, .floating_result = true,
                                  .out = Out::Result});
}
// prod(Tensor self, *, ScalarType? dtype=None) -> Tensor
Spec prod() { return reduction("prod.default", {.dtype = true, .refused = {S::Half, S::BFloat16}, .out = Out::Result}); }
// prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
Spec prod_dim() {
  return reduction("prod.dim_int", {.dims = Dims::One, .keepdim = true, .dtype = true, .refused = {S::Half, S::BFloat16}});
}

// cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
Spec cumsum() {
  return reduction("cumsum.default", {.dims = Dims::One, .dtype = true, .refused = {S::Bool, S::Half},
                                      .checked_zero_dim_cast = true, .out = Out::Result});
}
// cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
Spec cumprod() {
  return reduction("cumprod.default", {.dims = Dims::One, .dtype = true, .refused = {S::Bool, S::Half},
                                       .checked_zero_dim_cast = true, .out = Out::Result});
}
// amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
// Complex numbers have no order: amax, amin, max, min, argmax, argmin, sort and topk refuse them.
Spec amax() {
  return reduction("amax.default", {.dims = Dims::List, .keepdim = true, .refused = complex_list(), .identity = false,
                                    .out = Out::Self});
}
// amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
Spec amin() {
  return reduction("amin.default", {.dims = Dims::List, .keepdim = true, .refused = complex_list(), .identity = false,
                                    .out = Out::Self});
}
// logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
Spec logsumexp() {
  auto all_dims = deviation("logsumexp.empty_dim_list",
      "dim=[] on a self of rank >= 1 fails with a shape mismatch (\"output with shape [] doesn't match the "
      "broadcast shape\"): the kernel's max reduces every dim and its sum none",
      "ops-fuzz sweep logsumexp.default --config contract --seed 0 --max 300");
  // [] reduces every dim, as for sum and amax.
  // A real result only ("logsumexp(): Expected floating point type for result tensor").
  return reduction("logsumexp.default", {.dims = Dims::List, .keepdim = true, .refused = with_complex({S::Half}),
      .dim_length = {Avoid(all_dims, Ge("1 when self.rank >= 1", [](const Ctx& c) -> std::optional<int64_t> {
        if (c.rank("self") >= 1) return 1;
        return std::nullopt;
      }))},
      .out = Out::Float});
}

// any(Tensor self) -> Tensor
Spec any() { return reduction("any.default", {}); }
// any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
Spec any_dim() { return reduction("any.dim", {.dims = Dims::One, .keepdim = true, .out = Out::Any}); }
// max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
Spec max_dim() {
  return reduction("max.dim", {.dims = Dims::One, .keepdim = true, .refused = complex_list(), .identity = false});
}
// min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
Spec min_dim() {
  return reduction("min.dim", {.dims = Dims::One, .keepdim = true, .refused = complex_list(), .identity = false});
}
// argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
Spec argmax() {
  return reduction("argmax.default", {.dims = Dims::OneOpt, .keepdim = true, .refused = with_complex({S::Bool}), .identity = false,
                                      .size_one_returns = true, .out = Out::Long});
}
// argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
Spec argmin() {
  return reduction("argmin.default", {.dims = Dims::OneOpt, .keepdim = true, .refused = with_complex({S::Bool}), .identity = false,
                                      .size_one_returns = true, .out = Out::Long});
}

// _softmax(Tensor self, int dim, bool half_to_float) -> Tensor
Spec softmax_() { return softmax_kernel("_softmax.default"); }
// _log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor
Spec log_softmax_() { return softmax_kernel("_log_softmax.default"); }
// softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
Spec softmax_int() { return softmax("softmax.int"); }
// log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
Spec log_softmax_int() { return softmax("log_softmax.int"); }

// sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
Spec sort() { return sort_like("sort.default"); }
// argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor
Spec argsort() { return sort_like("argsort.default"); }

// var.correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor
Spec var_correction() { return variance("var.correction", true); }
// std.correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor
Spec std_correction() { return variance("std.correction", true); }
// var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
Spec var_dim() { return variance("var.dim", false); }

// norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
Spec norm() {
  return Spec("norm.ScalarOpt_dim")
      .in(Tensor("self")
            .dtype(In(kInexact)))
      .in(ScalarOpt("p").deps("self")
            // Read only when self has elements.
            .dtype(In("{int, float} when self has elements", [](const Ctx& c) -> std::optional<std::vector<ScalarDtype>> {
              if (c.numel("self") == 0) return std::nullopt;
              return std::vector{ScalarDtype::Int, ScalarDtype::Float};
            })))
      .in(reduced_dims({.dims = Dims::List}))
      .in(Bool("keepdim"))
      .out(out_tensor(Out::Self, false));
}

// linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
//                    ScalarType? dtype=None) -> Tensor
Spec linalg_vector_norm() {
  return Spec("linalg_vector_norm.default")
      .in(Tensor("self")
            .dtype(In(kInexact)))
      .in(Scalar("ord"))
      // ord < 0 and ord = inf have no identity.
      .in(reduced_dims({.dims = Dims::ListOpt, .identity = false}, " when ord < 0 or ord is inf", [](const Ctx& c) {
            double ord = c.as_double("ord");
            return ord < 0 || std::isinf(ord);
          }).deps("ord"))
      .in(Bool("keepdim"))
      .kw(ScalarTypeOpt("dtype").deps("self")
            // "dtype should be real for real inputs"
            .value(In("the dtypes of self's kind (real or complex) it converts to without narrowing", [](const Ctx& c) {
              const S self = c.dtype("self");
              std::vector<S> out;
              for (S t : kInexact)
                if (c10::promoteTypes(self, t) == t && c10::isComplexType(t) == c10::isComplexType(self)) out.push_back(t);
              return out;
            })))
      .out(out_tensor(Out::Result, true));
}

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
Spec topk() {
  auto bool_half = deviation("topk.bool_half_self",
      "topk refuses bool and float16 self on some paths and takes them on early-return ones",
      "ops-fuzz sweep topk.default --config contract,half --seed 0 --max 300");
  return Spec("topk.default")
      .in(ordered_self()
            .dtype(Avoid(bool_half, NotIn(std::vector{S::Bool, S::Half}))))
      .in(Length("k").deps("self", "dim")
            .value(Be(0, expr("self.size(dim)", [](const Ctx& c) {
              return c.rank("self") == 0 ? 1 : c.size("self", c.as_int("dim"));
            }))))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Bool("largest"))
      .in(Bool("sorted"));
}

}  // namespace

std::span<const SpecFn> reduction_specs() {
  static constexpr SpecFn table[] = {
      sum, sum_dim, mean, mean_dim, prod, prod_dim, cumsum, cumprod, amax, amin, logsumexp, any, any_dim,
      max_dim, min_dim, argmax, argmin, softmax_, log_softmax_, softmax_int, log_softmax_int, sort, argsort,
      var_correction, std_correction, var_dim, norm, linalg_vector_norm, topk};
  return table;
}

}  // namespace opsfuzz::db
