// The spec DSL: what a spec author writes. Conditions take a constant or a function of the
// context (`[](const Ctx& c) { return c.rank(0) + 2; }`); a function may return std::nullopt
// for "no constraint here".
#pragma once

#include "specs/model/spec.h"

#include <span>

namespace opsfuzz::dsl {

namespace detail {

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
concept Collection = requires(const T& t) { t.begin(); t.end(); } && !std::is_convertible_v<T, std::string>;

template <class T> Value one(const T& v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else if constexpr (std::is_integral_v<T>) return static_cast<int64_t>(v);
  else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(v);
  else if constexpr (std::is_convertible_v<T, std::string>) return std::string(v);
  else return Value(v);
}

// Converts what a condition's function returns into an Operand. `many` says whether a
// collection is a set of values (In, NotIn, Be) or one tuple value (Eq of an int list).
template <class T> std::optional<Operand> operand(const T& r, bool many) {
  if constexpr (is_optional<T>::value) {
    if (!r) return std::nullopt;
    return operand(*r, many);
  } else if constexpr (std::is_same_v<T, GenSets>) {
    return Operand{r.valid, r.invalid};
  } else if constexpr (std::is_same_v<T, Operand>) {
    return r;
  } else if constexpr (Collection<T>) {
    if constexpr (std::is_integral_v<typename T::value_type>)
      if (!many) return Operand{{one(IntList(r.begin(), r.end()))}, {}};
    Operand o;
    for (const auto& v : r) o.values.push_back(one(v));
    return o;
  } else {
    return Operand{{one(r)}, {}};
  }
}

template <class F> ConstraintFn function(F f, bool many) {
  if constexpr (std::is_invocable_v<F, const Ctx&>) {
    return [f, many](const Ctx& c) { return operand(f(c), many); };
  } else {
    auto fixed = operand(f, many);
    return [fixed](const Ctx&) { return fixed; };
  }
}

template <class F> std::string text(const F& f) {
  if constexpr (std::is_invocable_v<F, const Ctx&>) return "f(deps)";
  else if constexpr (requires { to_string(operand(f, true)->values.front()); }) {
    auto o = operand(f, true);
    if (!o) return "-";
    std::string s;
    for (const auto& v : o->values) s += (s.empty() ? "" : ", ") + to_string(v);
    return o->values.size() == 1 ? s : "{" + s + "}";
  } else return "?";
}

template <class F> Cond cond(Suffix s, F f, bool many = false) {
  std::string t = text(f);
  return Cond{s, function(std::move(f), many), std::move(t), true, !std::is_invocable_v<F, const Ctx&>};
}

}  // namespace detail

template <class F> Cond Eq(F f) { return detail::cond(Suffix::Eq, std::move(f)); }
template <class F> Cond Ne(F f) { return detail::cond(Suffix::Ne, std::move(f)); }
template <class F> Cond Le(F f) { return detail::cond(Suffix::Le, std::move(f)); }
template <class F> Cond Lt(F f) { return detail::cond(Suffix::Lt, std::move(f)); }
template <class F> Cond Ge(F f) { return detail::cond(Suffix::Ge, std::move(f)); }
template <class F> Cond Gt(F f) { return detail::cond(Suffix::Gt, std::move(f)); }
template <class F> Cond In(F f) { return detail::cond(Suffix::In, std::move(f), true); }
template <class F> Cond NotIn(F f) { return detail::cond(Suffix::NotIn, std::move(f), true); }
// Gen: the function returns GenSets{valid candidates, invalid candidates}.
template <class F> Cond Gen(F f) { return detail::cond(Suffix::Gen, std::move(f), true); }
// Be: lo <= value <= hi, both from one function returning a pair, or two constants/functions.
template <class F> Cond Be(F f) { return detail::cond(Suffix::Be, std::move(f), true); }
template <class L, class H> Cond Be(L lo, H hi) {
  auto get = [](const auto& x, const Ctx& c) {
    if constexpr (std::is_invocable_v<decltype(x), const Ctx&>) return x(c);
    else return x;
  };
  Cond c = Be([=](const Ctx& c) {
    return std::vector<double>{static_cast<double>(get(lo, c)), static_cast<double>(get(hi, c))};
  });
  c.constant = !std::is_invocable_v<L, const Ctx&> && !std::is_invocable_v<H, const Ctx&>;
  return c;
}

// Scope: narrows what is generated without being a rule of the op, so invalid generation
// never negates it (e.g. generating only non-transposed convolutions).
inline Cond Scope(Cond c) { c.negatable = false; return c; }
// Names a condition in labels and invalid samples: Named("non-negative", Ge(0)).
inline Cond Named(std::string text, Cond c) { c.text = std::move(text); return c; }

#define OPSFUZZ_ARGTYPE(T) \
  inline ArgSpec T(std::string name) { return ArgSpec(std::move(name), ArgType::T); }
OPSFUZZ_ARGTYPE(Tensor) OPSFUZZ_ARGTYPE(TensorOpt) OPSFUZZ_ARGTYPE(TensorList)
OPSFUZZ_ARGTYPE(TensorOptList) OPSFUZZ_ARGTYPE(Scalar) OPSFUZZ_ARGTYPE(ScalarOpt)
OPSFUZZ_ARGTYPE(ScalarType) OPSFUZZ_ARGTYPE(ScalarTypeOpt) OPSFUZZ_ARGTYPE(Dim)
OPSFUZZ_ARGTYPE(DimOpt) OPSFUZZ_ARGTYPE(DimList) OPSFUZZ_ARGTYPE(DimListOpt) OPSFUZZ_ARGTYPE(Shape)
OPSFUZZ_ARGTYPE(Index) OPSFUZZ_ARGTYPE(IndexOpt) OPSFUZZ_ARGTYPE(Length) OPSFUZZ_ARGTYPE(LengthOpt)
OPSFUZZ_ARGTYPE(LengthList) OPSFUZZ_ARGTYPE(Bool) OPSFUZZ_ARGTYPE(BoolOpt) OPSFUZZ_ARGTYPE(Int)
OPSFUZZ_ARGTYPE(IntOpt) OPSFUZZ_ARGTYPE(Float) OPSFUZZ_ARGTYPE(FloatOpt) OPSFUZZ_ARGTYPE(String)
OPSFUZZ_ARGTYPE(StringOpt) OPSFUZZ_ARGTYPE(MemoryFormat) OPSFUZZ_ARGTYPE(MemoryFormatOpt)
#undef OPSFUZZ_ARGTYPE

}  // namespace opsfuzz::dsl
