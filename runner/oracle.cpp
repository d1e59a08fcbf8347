#include "runner/oracle.h"

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "argtypes/argtypes.h"
#include "argtypes/text.h"
#include "runner/values.h"

namespace opsfuzz::runner {

// ---------------------------------------------------------------------------------- tolerances

// torch.testing.assert_close's defaults, chosen so that two correct implementations that round
// differently agree, while a wrong result does not:
//   Float     rtol 1.3e-6 (about 11 ulp of 2^-23), atol 1e-5 (results that cancel to near zero);
//   Double    rtol 1e-7, atol 1e-7;
//   Half      rtol 1e-3: above 2^-10, the largest relative gap between neighbouring halves, so a
//             1-ulp difference always passes; atol 1e-5: above the subnormal step 2^-24;
//   BFloat16  rtol 1.6e-2: two ulp of its 2^-7 relative gap; atol 1e-5;
//   complex   its float parts' (ComplexHalf as Half, ...);
//   integral and bool: exact — two correct integer results are equal.
Tolerance default_tolerance(c10::ScalarType dtype) {
  switch (c10::toRealValueType(dtype)) {
    case c10::ScalarType::Float: return {1e-5, 1.3e-6};
    case c10::ScalarType::Double: return {1e-7, 1e-7};
    case c10::ScalarType::Half: return {1e-5, 1e-3};
    case c10::ScalarType::BFloat16: return {1e-5, 1.6e-2};
    default: return {0, 0};
  }
}

Tolerance tolerance_for(c10::ScalarType a, c10::ScalarType b, std::optional<c10::ScalarType> precision) {
  Tolerance loosest = default_tolerance(a);
  auto loosen = [&](Tolerance t) {
    loosest.atol = std::max(loosest.atol, t.atol);
    loosest.rtol = std::max(loosest.rtol, t.rtol);
  };
  loosen(default_tolerance(b));
  if (precision) loosen(default_tolerance(*precision));
  return loosest;
}

// ---------------------------------------------------------------------------------- elements

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T> constexpr bool is_float_like =
    std::is_floating_point_v<T> || std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;

template <typename T> std::string value_text(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(static_cast<int64_t>(v));
  } else if constexpr (c10::is_complex<T>::value) {  // Python's spelling: (1-2j)
    const std::string re = value_text(v.real()), im = value_text(v.imag());
    return std::string("(").append(re).append(im.front() == '-' ? "" : "+").append(im).append("j)");
  } else if constexpr (std::is_same_v<T, double>) {
    return number_text(v);
  } else {
    return number_text(static_cast<float>(v));
  }
}

// The bit pattern of a floating value (Half and BFloat16 keep theirs in x).
template <typename T> uint64_t bits_of(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
  else return v.x;
}

// How many representable values of T lie between two finite values: sign-magnitude patterns
// are ordered by value on each side of zero; +0 and -0 count as one value.
template <typename T> double ulp_distance(T a, T b) {
  constexpr uint64_t sign = uint64_t{1} << (sizeof(T) * 8 - 1);
  const uint64_t x = bits_of(a), y = bits_of(b);
  const uint64_t mx = x & ~sign, my = y & ~sign;
  if ((x & sign) != (y & sign)) return static_cast<double>(mx + my);
  return static_cast<double>(mx > my ? mx - my : my - mx);
}

// One element pair judged: whether it passes, its Chebyshev distance and its ULP distance.
struct Judged {
  bool ok = true;
  double distance = 0, ulp = 0;
};

// NaN equals NaN and an infinity itself; anything else among non-finite values is infinitely far.
Judged special(bool equal) { return equal ? Judged{} : Judged{false, kInf, kInf}; }

template <typename T> Judged judge(T out, T ref, Tolerance tol) {
  if constexpr (c10::is_complex<T>::value) {
    const double xr = static_cast<double>(out.real()), xi = static_cast<double>(out.imag());
    const double yr = static_cast<double>(ref.real()), yi = static_cast<double>(ref.imag());
    const bool nan_x = std::isnan(xr) || std::isnan(xi), nan_y = std::isnan(yr) || std::isnan(yi);
    if (nan_x || nan_y) return special(nan_x && nan_y);  // a NaN in either part: a complex NaN
    if (std::isinf(xr) || std::isinf(xi) || std::isinf(yr) || std::isinf(yi)) {
      // Part by part: (inf - 5.2865934j) and (inf - 5.286594j) agree as far as they are finite.
      const Judged re = judge(out.real(), ref.real(), tol), im = judge(out.imag(), ref.imag(), tol);
      return {re.ok && im.ok, std::max(re.distance, im.distance), std::max(re.ulp, im.ulp)};
    }
    const double d = std::hypot(xr - yr, xi - yi);
    return {d <= tol.atol + tol.rtol * std::hypot(yr, yi), d,
            std::max(ulp_distance(out.real(), ref.real()), ulp_distance(out.imag(), ref.imag()))};
  } else if constexpr (is_float_like<T>) {
    const double x = static_cast<double>(out), y = static_cast<double>(ref);
    if (std::isnan(x) || std::isnan(y)) return special(std::isnan(x) && std::isnan(y));
    if (std::isinf(x) || std::isinf(y)) return special(x == y);
    const double d = std::abs(x - y);
    return {d <= tol.atol + tol.rtol * std::abs(y), d, ulp_distance(out, ref)};
  } else {  // integral and bool: exact; one unit in the last place is 1
    const double d = std::abs(static_cast<double>(out) - static_cast<double>(ref));
    return {out == ref, d, d};
  }
}

// opdiff's |a - b| in float64 (the modulus for complex values), non-finite values as IEEE has them.
template <typename T> double float64_gap(T out, T ref) {
  if constexpr (c10::is_complex<T>::value) {
    return std::hypot(static_cast<double>(out.real()) - static_cast<double>(ref.real()),
                      static_cast<double>(out.imag()) - static_cast<double>(ref.imag()));
  } else {
    return std::abs(static_cast<double>(out) - static_cast<double>(ref));
  }
}

template <typename T> bool is_nan(T v) {
  if constexpr (c10::is_complex<T>::value) return is_nan(v.real()) || is_nan(v.imag());
  else if constexpr (is_float_like<T>) return std::isnan(static_cast<double>(v));
  else return false;
}

// acc = max(acc, v), where NaN wins and stays (numpy's max, not Python's).
void raise_to(double& acc, double v) {
  if (!std::isnan(acc) && (std::isnan(v) || v > acc)) acc = v;
}

// Everything one leaf's elements contribute.
struct LeafScan {
  double ulp = 0, chebyshev = 0;
  double square_sum = 0, abs_sum = 0, max_abs = 0;  // opdiff's, NaN propagating
  int64_t first_bad = -1;                           // flat index of the first failing element
  std::string out_text, ref_text;                   // its values
  bool nan_in_output = false, nan_in_reference = false;
};

template <typename T> LeafScan scan_elements(const at::Tensor& out, const at::Tensor& ref, Tolerance tol) {
  const T* a = static_cast<const T*>(out.data_ptr());
  const T* b = static_cast<const T*>(ref.data_ptr());
  LeafScan s;
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    const Judged j = judge(a[i], b[i], tol);
    s.ulp = std::max(s.ulp, j.ulp);
    s.chebyshev = std::max(s.chebyshev, j.distance);
    if (!j.ok && s.first_bad < 0) {
      s.first_bad = i;
      s.out_text = value_text(a[i]);
      s.ref_text = value_text(b[i]);
    }
    const double gap = float64_gap(a[i], b[i]);
    s.square_sum += gap * gap;
    s.abs_sum += gap;
    raise_to(s.max_abs, gap);
    s.nan_in_output = s.nan_in_output || is_nan(a[i]);
    s.nan_in_reference = s.nan_in_reference || is_nan(b[i]);
  }
  return s;
}

// A leaf's values as a dense, contiguous tensor of `dtype` with plain bits (conj/neg resolved).
at::Tensor plain(const at::Tensor& t, c10::ScalarType dtype) {
  at::Tensor dense = t.is_sparse() ? t.to_dense() : t.is_quantized() ? t.dequantize() : t;
  return dense.resolve_conj().resolve_neg().to(dtype).contiguous();
}

// ---------------------------------------------------------------------------------- leaves

std::string leaf_name(const std::string& path) { return path.empty() ? "output" : "output " + path; }

std::string kind_text(const Leaf& leaf) { return leaf.none ? "None" : leaf.scalar ? "number" : "tensor"; }

std::string tolerance_text(std::optional<Tolerance> tol) {
  if (!tol) return "exact";
  return "atol " + number_text(tol->atol) + ", rtol " + number_text(tol->rtol);
}

// opdiff normalizes a 0-d leaf to shape [1] before comparing shapes.
std::vector<int64_t> opdiff_shape(const at::Tensor& t) {
  return t.dim() == 0 ? std::vector<int64_t>{1} : t.sizes().vec();
}

// Walks the leaf pairs of one comparison, keeping opdiff's first reason the outputs are not
// comparable and our first reason they do not match.
class Comparison {
 public:
  Comparison(std::optional<c10::ScalarType> precision, std::optional<Tolerance> tolerance)
      : precision_(precision), tolerance_(tolerance) {}

  Diff run(const std::vector<Leaf>& out, const std::vector<Leaf>& ref) {
    if (out.size() != ref.size()) {
      not_comparable("NOT_COMPARABLE_SHAPE", "len mismatch");
      mismatch("output: " + std::to_string(out.size()) + " leaves vs reference " + std::to_string(ref.size()));
    } else {
      for (size_t i = 0; i < out.size(); ++i) leaf(out[i], ref[i]);
    }
    if (diff_.comparable && count_ > 0) {
      diff_.mse = square_sum_ / static_cast<double>(count_);
      diff_.mean_abs = abs_sum_ / static_cast<double>(count_);
      diff_.max_abs = max_abs_;
    }
    return diff_;
  }

 private:
  void not_comparable(std::string code, std::string msg) {
    if (!diff_.comparable) return;
    diff_.comparable = false;
    diff_.code = std::move(code);
    diff_.msg = std::move(msg);
  }

  void mismatch(std::string why) {
    if (!diff_.match) return;
    diff_.match = false;
    diff_.why = std::move(why);
  }

  void leaf(const Leaf& out, const Leaf& ref) {
    const std::string name = leaf_name(out.path);
    if (out.path != ref.path)
      mismatch(name + " vs reference" + (ref.path.empty() ? "" : " " + ref.path) + ": nested differently");
    if (out.none || ref.none) {
      if (out.none == ref.none) return;
      not_comparable("NOT_COMPARABLE_SHAPE", "type mismatch");
      return mismatch(name + ": " + kind_text(out) + " vs reference " + kind_text(ref));
    }
    if (out.scalar != ref.scalar) mismatch(name + ": " + kind_text(out) + " vs reference " + kind_text(ref));
    const at::Tensor &a = out.value, &b = ref.value;
    if (a.scalar_type() != b.scalar_type())
      mismatch(name + ": dtype " + std::string(opsfuzz::name(a.scalar_type())) + " vs reference " +
               std::string(opsfuzz::name(b.scalar_type())));
    if (a.sizes() != b.sizes())
      mismatch(name + ": shape " + sizes_text(a.sizes()) + " vs reference " + sizes_text(b.sizes()));
    if (opdiff_shape(a) != opdiff_shape(b)) return not_comparable("NOT_COMPARABLE_SHAPE", "shape mismatch");
    if (a.numel() == 0) return not_comparable("NOT_COMPARABLE_EMPTY", "");
    values(name, a, b);
  }

  // Integral and bool leaves compare exactly (nullopt); others within the tolerance.
  std::optional<Tolerance> tolerance(c10::ScalarType compared, const at::Tensor& a, const at::Tensor& b) const {
    if (c10::isIntegralType(compared, /*includeBool=*/true)) return std::nullopt;
    return tolerance_ ? *tolerance_ : tolerance_for(a.scalar_type(), b.scalar_type(), precision_);
  }

  void values(const std::string& name, const at::Tensor& a, const at::Tensor& b) {
    const c10::ScalarType compared = at::promote_types(a.scalar_type(), b.scalar_type());
    const std::optional<Tolerance> tol = tolerance(compared, a, b);
    const at::Tensor pa = plain(a, compared), pb = plain(b, compared);
    LeafScan s;
    AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4(at::kHalf, at::kBFloat16, at::kBool, at::kComplexHalf, compared,
                                           "oracle_compare",
                                           [&] { s = scan_elements<scalar_t>(pa, pb, tol.value_or(Tolerance{})); });
    if (s.nan_in_reference) not_comparable("NAN_IN_BASELINE", "baseline contains NaN");
    if (s.nan_in_output) not_comparable("NAN_IN_OUTPUT", "output contains NaN");
    square_sum_ += s.square_sum;
    abs_sum_ += s.abs_sum;
    raise_to(max_abs_, s.max_abs);
    count_ += a.numel();
    diff_.ulp = std::max(diff_.ulp, s.ulp);
    diff_.chebyshev = std::max(diff_.chebyshev, s.chebyshev);
    if (s.first_bad >= 0 && diff_.match) diff_.dtype = opsfuzz::name(a.scalar_type());
    if (s.first_bad >= 0)
      mismatch(name + index_text(s.first_bad, a.sizes()) + ": " + s.out_text + " vs reference " + s.ref_text + " (" +
               tolerance_text(tol) + ")");
  }

  std::optional<c10::ScalarType> precision_;
  std::optional<Tolerance> tolerance_;
  Diff diff_;
  double square_sum_ = 0, abs_sum_ = 0, max_abs_ = 0;
  int64_t count_ = 0;
};

}  // namespace

// opdiff's walk, with these choices where it has none: a None leaf on both sides is comparable
// and contributes nothing (opdiff fails on it); when no element is compared at all the metrics
// are 0 (opdiff fails there too); complex differences are moduli (opdiff's float64 cast drops
// the imaginary part); max_abs is NaN once a difference is (opdiff's Python max ignores it).
Diff compare(const c10::IValue& output, const c10::IValue& reference, std::optional<c10::ScalarType> precision,
             std::optional<Tolerance> tolerance) {
  return Comparison(precision, tolerance).run(flatten(output), flatten(reference));
}

Diff compare(const Output& out, const c10::IValue& baseline) {
  return compare(out.value, out.reference ? *out.reference : baseline, out.precision, out.tolerance);
}

}  // namespace opsfuzz::runner
