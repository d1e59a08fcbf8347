#include "specs/model/relations.h"

#include <c10/core/ScalarType.h>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cmath>
#include <limits>

namespace opsfuzz::dsl {

namespace {
// x rounded to the floating dtype `t` (double for any other).
long double rounded(long double x, c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Half: return static_cast<float>(c10::Half(static_cast<float>(x)));
    case c10::ScalarType::BFloat16: return static_cast<float>(c10::BFloat16(static_cast<float>(x)));
    case c10::ScalarType::Float: return static_cast<float>(x);
    default: return static_cast<double>(x);
  }
}

// The value of `t` nearest to `limit` on the side of zero. An integral dtype's limits (2^31 - 1)
// are not all floats: rounded away from zero, a limit would leave the range it bounds.
double representable_within(long double limit, c10::ScalarType t) {
  long double inside = 0, outside = limit;  // rounded(inside) stays within limit
  if (std::fabs(rounded(limit, t)) <= std::fabs(limit)) return static_cast<double>(rounded(limit, t));
  for (int i = 0; i < 80; ++i) {
    long double mid = (inside + outside) / 2;
    (std::fabs(rounded(mid, t)) <= std::fabs(limit) ? inside : outside) = mid;
  }
  return static_cast<double>(rounded(inside, t));
}

// The range of the integral type T for values of dtype `from` (floating values are rounded).
template <class T> void range_of(double& lo, double& hi, c10::ScalarType from) {
  auto limit = [from](long double v) {
    return c10::isFloatingType(from) ? representable_within(v, from) : static_cast<double>(v);
  };
  lo = limit(std::numeric_limits<T>::lowest());
  hi = limit(std::numeric_limits<T>::max());
}
}  // namespace

std::string interval_text(const std::string& lo, const std::string& hi) {
  std::string t = "[";
  t.append(lo).append(", ").append(hi).append("]");
  return t;
}

int64_t dim_rank(const Ctx& c, std::string_view arg) { return std::max<int64_t>(c.rank(arg), 1); }

Cond dim_of(std::string arg) {
  std::string text = "[-" + arg + ".rank, " + arg + ".rank)";
  return Be(std::move(text), [arg](const Ctx& c) {
    return std::vector<double>{static_cast<double>(-dim_rank(c, arg)), static_cast<double>(dim_rank(c, arg) - 1)};
  });
}

Cond unique_dim_of(std::string arg) {
  return NotIn("the dims of " + arg + " taken by earlier entries", [arg](const Ctx& c) {
    IntList taken;
    int64_t r = dim_rank(c, arg);
    for (int64_t d : c.solved()) {
      int64_t w = d < 0 ? d + r : d;
      taken.push_back(w), taken.push_back(w - r);
    }
    return taken;
  });
}

Cond broadcastable_with(std::vector<std::string> args) {
  std::string text = "broadcastable with ";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? " and " : "") + args[i];
  return Gen(std::move(text), [args](const Ctx& c) -> std::optional<GenSets> {
    // The size the other tensors fix at this dim (aligned from the right), if any is not 1.
    std::optional<int64_t> fixed;
    for (const auto& arg : args) {
      int64_t od = c.dim() - (c.rank() - c.rank(arg));
      if (od < 0) continue;
      int64_t s = c.size(arg, od);
      if (s != 1) fixed = s;
    }
    if (!fixed) return std::nullopt;
    return split(0, 9, [f = *fixed](int64_t v) { return v == f || v == 1; });
  });
}

namespace {
// The values of an integral dtype `dtype(c)` (none, or not integral: no constraint) that a value
// of the argument being solved converts into; `wrap`: integers wrap around (a tensor's cast).
Cond integral_range(std::string what, std::function<std::optional<c10::ScalarType>(const Ctx&)> dtype, bool wrap) {
  return Be("the range of " + what, [dtype, wrap](const Ctx& c) -> std::optional<std::vector<double>> {
    auto t = dtype(c);
    // bool takes any value; a value cast to a floating dtype past its range becomes inf (defined),
    // while one that must fit it (fits_dtype) may not exceed its largest finite value. A complex
    // dtype's parts are of its real counterpart.
    if (!t || *t == c10::ScalarType::Bool) return std::nullopt;
    if (c10::isComplexType(*t)) t = c10::toRealValueType(*t);
    if (c10::isFloatingType(*t)) {
      if (wrap || *t == c10::ScalarType::Double) return std::nullopt;
      double max = *t == c10::ScalarType::Half       ? 65504.0
                   : *t == c10::ScalarType::BFloat16 ? static_cast<double>(std::numeric_limits<c10::BFloat16>::max())
                                                     : static_cast<double>(std::numeric_limits<float>::max());
      // Only finite values past the range overflow: c10's checked conversion passes infinities
      // and NaN into a floating dtype (Be's third value).
      return std::vector<double>{-max, max, 1};
    }
    bool tensor = has_tensors(c.type());
    ScalarDtype from = tensor               ? scalar_dtype_of(c.own_dtype())
                       : is_float(c.type()) ? ScalarDtype::Float  // a float argument
                                            : c.own_scalar_dtype();
    if (wrap && from != ScalarDtype::Float) return std::nullopt;
    // The dtype the values are held in before the cast (a Python float is a double).
    c10::ScalarType held = tensor ? c.own_dtype() : from == ScalarDtype::Float ? c10::ScalarType::Double : *t;
    double lo = 0, hi = 0;
    switch (*t) {
      case c10::ScalarType::Byte:  // negative integers wrap around, negative floats overflow
        lo = from == ScalarDtype::Float ? 0 : -255, hi = 255;
        break;
      case c10::ScalarType::Char: range_of<int8_t>(lo, hi, held); break;
      case c10::ScalarType::Short: range_of<int16_t>(lo, hi, held); break;
      case c10::ScalarType::Int: range_of<int32_t>(lo, hi, held); break;
      case c10::ScalarType::Long: range_of<int64_t>(lo, hi, held); break;
      default: break;
    }
    return std::vector<double>{lo, hi};
  });
}
}  // namespace

Cond fits_dtype(std::string what, std::function<std::optional<c10::ScalarType>(const Ctx&)> dtype) {
  return integral_range(std::move(what), std::move(dtype), false);
}

Cond casts_into(std::string what, std::function<std::optional<c10::ScalarType>(const Ctx&)> dtype) {
  return integral_range(std::move(what), std::move(dtype), true);
}

Cond above_lowest_integer(std::string when, std::function<bool(const Ctx&)> applies) {
  return Ge("the lowest value of its dtype plus one when it is int32 or int64" + when,
            [applies = std::move(applies)](const Ctx& c) -> std::optional<double> {
              c10::ScalarType t = c.own_dtype();
              if (!applies(c)) return std::nullopt;
              if (t == c10::ScalarType::Int) return -2147483647.0;
              if (t == c10::ScalarType::Long) return -9223372036854774784.0;  // the first double above -2^63
              return std::nullopt;
            });
}

c10::ScalarType promoted(const Ctx& c, std::initializer_list<std::string_view> args) {
  c10::ScalarType t = c.dtype(*args.begin());
  for (auto a : args) t = c10::promoteTypes(t, c.dtype(a));
  return t;
}

std::vector<int64_t> divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min(n, limit); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

int64_t param(const Ctx& c, std::string_view list, int64_t i) {
  const auto& l = c.ints(list);
  return l.size() == 1 ? l[0] : l.at(static_cast<size_t>(i));
}

}  // namespace opsfuzz::dsl
