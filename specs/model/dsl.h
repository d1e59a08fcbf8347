// The spec DSL: what a spec author writes. Conditions take a constant, or a function of the
// context with its text (`Le("self.rank", [](const Ctx& c) { return c.rank("self"); })`); a
// function may return std::nullopt for "no constraint here".
#pragma once

#include "specs/model/spec.h"

#include <span>

namespace opsfuzz::dsl {

namespace detail {

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
concept Collection = requires(const T& t) {
  t.begin();
  t.end();
}
&&!std::is_convertible_v<T, std::string>;

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
    return Operand{r.valid, r.invalid, r.allows};
  } else if constexpr (std::is_same_v<T, Operand>) {
    return r;
  } else if constexpr (Collection<T>) {
    if constexpr (std::is_integral_v<typename T::value_type>)
      if (!many) return Operand{{one(IntList(r.begin(), r.end()))}, {}, {}};
    Operand o;
    for (const auto& v : r) o.values.push_back(one(v));
    return o;
  } else {
    return Operand{{one(r)}, {}, {}};
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

template <class F> constexpr bool computed = std::is_invocable_v<F, const Ctx&>;

// The text of a constant right-hand side: "3", "{float32, float64}".
template <class F> std::string text(const F& f) {
  auto o = operand(f, true);
  if (!o) return "-";
  std::string s;
  for (const auto& v : o->values) s += (s.empty() ? "" : ", ") + to_string(v);
  return o->values.size() == 1 ? s : "{" + s + "}";
}

template <class F> Cond cond(Suffix s, std::string text, F f, bool many) {
  Cond c;
  c.suffix = s, c.fn = function(std::move(f), many), c.text = std::move(text), c.constant = !computed<F>;
  return c;
}

template <class F> Cond constant(Suffix s, F f, bool many = false) {
  static_assert(!computed<F>, "a condition computed from the dependencies needs its text, e.g. Eq(\"input.rank\", fn)");
  std::string t = text(f);
  return cond(s, std::move(t), std::move(f), many);
}

template <class T> double bound(const T& b, const Ctx& c) {
  if constexpr (std::is_arithmetic_v<T>) return static_cast<double>(b);
  else return b.fn(c);
}
template <class T> std::string bound_text(const T& b) {
  if constexpr (std::is_arithmetic_v<T>) return to_string(one(b));
  else return b.text;
}

}  // namespace detail

// A bound computed from the dependencies, with the text it reads as: expr("self.rank - 1", fn).
struct Expr {
  std::string text;
  std::function<double(const Ctx&)> fn;
};
template <class F> Expr expr(std::string text, F f) {
  return {std::move(text), [f = std::move(f)](const Ctx& c) { return static_cast<double>(f(c)); }};
}
template <class T>
concept Bound = std::is_arithmetic_v<T> || std::is_same_v<T, Expr>;

// A condition is a constant (`Ge(1)`, `In(std::vector{...})`), or a function of the context
// with the text its result reads as (`Eq("input.rank", [](const Ctx& c) { ... })`). Labels
// are "subject relation text": `weight.rank == input.rank`.
template <class F> Cond Eq(F f) { return detail::constant(Suffix::Eq, std::move(f)); }
template <class F> Cond Ne(F f) { return detail::constant(Suffix::Ne, std::move(f)); }
template <class F> Cond Le(F f) { return detail::constant(Suffix::Le, std::move(f)); }
template <class F> Cond Lt(F f) { return detail::constant(Suffix::Lt, std::move(f)); }
template <class F> Cond Ge(F f) { return detail::constant(Suffix::Ge, std::move(f)); }
template <class F> Cond Gt(F f) { return detail::constant(Suffix::Gt, std::move(f)); }
template <class F> Cond In(F f) { return detail::constant(Suffix::In, std::move(f), true); }
template <class F> Cond NotIn(F f) { return detail::constant(Suffix::NotIn, std::move(f), true); }
template <class F> Cond Eq(std::string t, F f) { return detail::cond(Suffix::Eq, std::move(t), std::move(f), false); }
template <class F> Cond Ne(std::string t, F f) { return detail::cond(Suffix::Ne, std::move(t), std::move(f), false); }
template <class F> Cond Le(std::string t, F f) { return detail::cond(Suffix::Le, std::move(t), std::move(f), false); }
template <class F> Cond Lt(std::string t, F f) { return detail::cond(Suffix::Lt, std::move(t), std::move(f), false); }
template <class F> Cond Ge(std::string t, F f) { return detail::cond(Suffix::Ge, std::move(t), std::move(f), false); }
template <class F> Cond Gt(std::string t, F f) { return detail::cond(Suffix::Gt, std::move(t), std::move(f), false); }
template <class F> Cond In(std::string t, F f) { return detail::cond(Suffix::In, std::move(t), std::move(f), true); }
template <class F> Cond NotIn(std::string t, F f) {
  return detail::cond(Suffix::NotIn, std::move(t), std::move(f), true);
}
// Gen: the function returns GenSets (the rule, and its valid and invalid candidates); the text
// is the whole predicate ("broadcastable with self").
template <class F> Cond Gen(std::string t, F f) { return detail::cond(Suffix::Gen, std::move(t), std::move(f), true); }
// A Gen rule on integers (an int, or a double that is one: tensor elements come as doubles).
GenRule on_ints(std::function<bool(int64_t)> rule);
// The GenSets of an integer rule: the candidates are [lo, hi], split by the rule.
GenSets split(int64_t lo, int64_t hi, std::function<bool(int64_t)> rule);
// Be: lo <= value <= hi, from one function returning {lo, hi} ({lo, hi, 1}: finite values in
// [lo, hi], infinities and NaN too: what converts into a floating dtype), or two bounds (constants or
// expr(...)).
template <class F> Cond Be(std::string t, F f) { return detail::cond(Suffix::Be, std::move(t), std::move(f), true); }
std::string interval_text(const std::string& lo, const std::string& hi);  // "[lo, hi]"
template <Bound L, Bound H> Cond Be(L lo, H hi) {
  Cond c = Be(interval_text(detail::bound_text(lo), detail::bound_text(hi)), [=](const Ctx& c) {
    return std::vector<double>{detail::bound(lo, c), detail::bound(hi, c)};
  });
  c.constant = std::is_arithmetic_v<L> && std::is_arithmetic_v<H>;
  return c;
}

// Scope: narrows what is generated without being a rule of the op, so invalid generation
// never breaks it (e.g. generating only non-transposed convolutions). Not for kernel bugs:
// those are deviations.
inline Cond Scope(Cond c) {
  c.role = Role::Scope;
  return c;
}
// A whole sentence as the label: Named("min or max is given", ...).
inline Cond Named(std::string sentence, Cond c) {
  c.text = std::move(sentence), c.sentence = true;
  return c;
}

// A named dtype set of argtypes.h (all_dtypes(), numeric_dtypes(), ...) as a spec's list.
inline std::vector<c10::ScalarType> listed(std::span<const c10::ScalarType> dtypes) {
  return {dtypes.begin(), dtypes.end()};
}

// Conditions on inputs (Spec::unchecked_on). Empty: a tensor without elements, or a list of
// tensors with one among them.
bool is_empty(const c10::IValue& v);
bool is_non_contiguous(const c10::IValue& v);  // a tensor

// A deviation's id: the op's name without its overload, then what it is
// ("div.lowest_dividend_by_minus_one" for div.Tensor_mode and div.Scalar_mode alike: one kernel's).
inline std::string deviation_id(const std::string& op, const std::string& what) {
  return op.substr(0, op.find('.')) + "." + what;
}

// A deviation of the linked kernel from the op's contract, with a command that reproduces it; a
// known crash names the signals it dies of (Deviation::signals).
inline DeviationRef deviation(std::string id, std::string reason, std::string command,
                              std::vector<std::string> signals = {}) {
  return std::make_shared<const Deviation>(
      Deviation{std::move(id), std::move(reason), std::move(command), std::move(signals)});
}
// The signals of known crashes, as strsignal() names them.
inline const std::string kAborted = "Aborted", kSegfault = "Segmentation fault", kBusError = "Bus error",
                         kFloatingPointException = "Floating point exception";
// Keeps valid samples inside `c`, out of a deviation the kernel shows outside it.
inline Cond Avoid(DeviationRef d, Cond c) {
  c.role = Role::Avoid, c.deviation = std::move(d);
  return c;
}
// A rule of the contract the kernel does not check: broken only under the contract.
inline Cond Unchecked(DeviationRef d, Cond c) {
  c.role = Role::Unchecked, c.deviation = std::move(d);
  return c;
}

#define OPSFUZZ_ARGTYPE(T) \
  inline ArgSpec T(std::string name) { return ArgSpec(std::move(name), ArgType::T); }
OPSFUZZ_ARGTYPE(Tensor)
OPSFUZZ_ARGTYPE(TensorOpt) OPSFUZZ_ARGTYPE(TensorList) OPSFUZZ_ARGTYPE(TensorOptList) OPSFUZZ_ARGTYPE(Scalar)
    OPSFUZZ_ARGTYPE(ScalarOpt) OPSFUZZ_ARGTYPE(ScalarType) OPSFUZZ_ARGTYPE(ScalarTypeOpt) OPSFUZZ_ARGTYPE(Dim)
        OPSFUZZ_ARGTYPE(DimOpt) OPSFUZZ_ARGTYPE(DimList) OPSFUZZ_ARGTYPE(DimListOpt) OPSFUZZ_ARGTYPE(Shape)
            OPSFUZZ_ARGTYPE(Index) OPSFUZZ_ARGTYPE(IndexOpt) OPSFUZZ_ARGTYPE(Length) OPSFUZZ_ARGTYPE(LengthOpt)
                OPSFUZZ_ARGTYPE(LengthList) OPSFUZZ_ARGTYPE(LengthListOpt) OPSFUZZ_ARGTYPE(Bool)
                    OPSFUZZ_ARGTYPE(BoolOpt) OPSFUZZ_ARGTYPE(BoolList) OPSFUZZ_ARGTYPE(Int) OPSFUZZ_ARGTYPE(IntOpt)
                        OPSFUZZ_ARGTYPE(Float) OPSFUZZ_ARGTYPE(FloatOpt) OPSFUZZ_ARGTYPE(FloatList)
                            OPSFUZZ_ARGTYPE(FloatListOpt) OPSFUZZ_ARGTYPE(String) OPSFUZZ_ARGTYPE(StringOpt)
                                OPSFUZZ_ARGTYPE(MemoryFormat) OPSFUZZ_ARGTYPE(MemoryFormatOpt) OPSFUZZ_ARGTYPE(Layout)
                                    OPSFUZZ_ARGTYPE(LayoutOpt) OPSFUZZ_ARGTYPE(Device) OPSFUZZ_ARGTYPE(DeviceOpt)
#undef OPSFUZZ_ARGTYPE

}  // namespace opsfuzz::dsl
