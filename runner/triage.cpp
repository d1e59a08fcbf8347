#include "runner/triage.h"

#include <ATen/ATen.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <limits>

#include "runner/op_facts.h"
#include "runner/triage_probes.h"
#include "runner/values.h"
#include "suite/modules.h"

namespace opsfuzz::runner {

bool Triage::set_aside() const {
  return verdict == "arbitration" || verdict == "low_precision" || verdict == "conditioning" || verdict == "range";
}

namespace {

// A dtype argument asking for a floating dtype, asking for its float64 kind instead.
c10::IValue float64_dtype_argument(const c10::Argument& param, const c10::IValue& v) {
  const std::optional<at::ScalarType> asked = dtype_argument(param, v);
  if (!asked) return v;
  const at::ScalarType dtype = *asked;
  if (at::isComplexType(dtype)) return static_cast<int64_t>(at::kComplexDouble);
  if (at::isFloatingType(dtype)) return static_cast<int64_t>(at::kDouble);
  return v;
}

// A floating number argument rounded to `dtype`, as a kernel of that dtype takes it.
c10::IValue rounded_to(const c10::IValue& v, at::ScalarType dtype) {
  auto round = [dtype](double x) { return at::scalar_tensor(x, at::kDouble).to(dtype).item<double>(); };
  if (v.isDouble()) return round(v.toDouble());
  if (v.isComplexDouble()) {
    const auto z = v.toComplexDouble();
    return c10::complex<double>(round(z.real()), round(z.imag()));
  }
  return v;
}

// Whether the call has floating number arguments (which a kernel may round to its dtype).
bool has_number_arguments(const Call& call) {
  return std::any_of(call.args.begin(), call.args.end(),
                     [](const c10::IValue& v) { return v.isDouble() || v.isComplexDouble(); });
}

}  // namespace

namespace triage_detail {

bool is_floating(const at::Tensor& t) {
  return at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type());
}

// As given, or its absolute values with non-finite ones as 0 (the magnitude of the finite terms;
// an infinite input's own result is judged by the float64 value). Integral tensors (not bool)
// take the signs too.
at::Tensor in_float64(const at::Tensor& t, Inputs inputs, bool negated) {
  const bool floating = is_floating(t);
  const at::ScalarType wide = at::isComplexType(t.scalar_type()) ? at::kComplexDouble : at::kDouble;
  if (inputs == Inputs::AsGiven) return floating ? t.to(wide) : t;
  if (t.scalar_type() == at::kBool) return t;
  at::Tensor magnitude = t.abs();
  if (floating) {
    magnitude = magnitude.to(at::kDouble);
    magnitude = at::where(at::isfinite(magnitude), magnitude, at::zeros_like(magnitude)).to(wide);
  }
  return negated ? magnitude.neg() : magnitude;
}

std::vector<at::Tensor> floating_inputs(const Call& call) {
  std::vector<at::Tensor> out;
  for_each_tensor(call, [&](const at::Tensor& t) {
    if (is_floating(t)) out.push_back(t);
  });
  return out;
}

c10::IValue evaluate_with(const Call& call, const std::function<at::Tensor(const at::Tensor&)>& convert,
                          std::optional<at::ScalarType> numbers_in) {
  std::vector<c10::IValue> args;
  for (const c10::IValue& v : call.args)
    args.push_back(map_tensors(numbers_in ? rounded_to(v, *numbers_in) : v, convert));
  if (call.op) {
    const auto& params = call.op->schema().arguments();
    for (size_t i = 0; i < params.size() && i < args.size(); ++i) args[i] = float64_dtype_argument(params[i], args[i]);
    return opcall::to_python(call.op->call(std::move(args)));
  }
  opcall::Kwargs kwargs;
  for (const auto& [name, v] : call.kwargs) kwargs.emplace_back(name, map_tensors(v, convert));
  return suite::converted_copy(*call.module, at::kDouble)->forward(args, kwargs);
}

at::Tensor flat_values(const at::Tensor& t, bool complex) {
  return t.resolve_conj().resolve_neg().to(complex ? at::kComplexDouble : at::kDouble).contiguous().view(-1);
}

bool same_structure(const Leaf& a, const Leaf& b) {
  if (a.none || b.none) return a.none == b.none;
  return a.path == b.path && a.value.sizes() == b.value.sizes();
}

}  // namespace triage_detail

using namespace triage_detail;

c10::IValue evaluate_in_float64(const Call& call, Inputs inputs, std::optional<at::ScalarType> numbers_in) {
  if (call.module && inputs != Inputs::AsGiven) throw std::invalid_argument("no magnitude for a module's parameters");
  size_t seen = 0;  // tensors converted so far: AbsoluteOthersNegated negates all but the first
  return evaluate_with(
      call,
      [&](const at::Tensor& t) { return in_float64(t, inputs, inputs == Inputs::AbsoluteOthersNegated && seen++ > 0); },
      numbers_in);
}

namespace {

// What an output's dtype allows an element to be off by.
struct Limits {
  bool exact = false;     // integral and bool: equal or wrong
  Tolerance tolerance;    // the dtype's ordinary tolerance (oracle.h default_tolerance)
  double max = 0;         // its largest finite value
  double eps = 0;         // machine epsilon of the type its kernels accumulate in
  int mantissa_bits = 0;  // float16 and bfloat16: stored mantissa bits (their ulps count); 0 otherwise
  int min_exponent = 0;   // float16 and bfloat16: exponent of the smallest normal value
};

Limits limits_of(at::ScalarType dtype) {
  Limits l;
  l.tolerance = default_tolerance(dtype);
  switch (c10::toRealValueType(dtype)) {
    case at::kDouble: l.max = DBL_MAX, l.eps = DBL_EPSILON; break;
    case at::kFloat: l.max = FLT_MAX, l.eps = FLT_EPSILON; break;
    case at::kHalf: l.max = 65504, l.eps = FLT_EPSILON, l.mantissa_bits = 10, l.min_exponent = -14; break;
    case at::kBFloat16:
      l.max = static_cast<double>(std::numeric_limits<c10::BFloat16>::max());
      l.eps = FLT_EPSILON, l.mantissa_bits = 7, l.min_exponent = -126;
      break;
    default: l.exact = true;
  }
  return l;
}

// The gap between neighbouring values of a float16/bfloat16 dtype at magnitude a.
double spacing(double a, const Limits& l) {
  int exponent = 0;
  std::frexp(a, &exponent);  // a = f * 2^exponent, f in [0.5, 1): the leading bit is 2^(exponent - 1)
  return std::ldexp(1.0, std::max(a == 0 ? l.min_exponent : exponent - 1, l.min_exponent) - l.mantissa_bits);
}

// Verdicts of one element, from agreeing to departing: the worst of a mismatch's elements decides.
enum class Verdict { Same, Arbitration, LowPrecision, Conditioning, Range, NonFinite, WrongValue };

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Same:
    case Verdict::Arbitration: return "arbitration";
    case Verdict::LowPrecision: return "low_precision";
    case Verdict::Conditioning: return "conditioning";
    case Verdict::Range: return "range";
    case Verdict::NonFinite: return "non_finite";
    case Verdict::WrongValue: return "wrong_value";
  }
  return "?";
}

bool departs(Verdict v) { return v >= Verdict::NonFinite; }

using Complex = c10::complex<double>;
bool is_nan(Complex z) { return std::isnan(z.real()) || std::isnan(z.imag()); }
bool is_finite(Complex z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); }

// What the call's inputs tell every element's bound.
struct Context {
  Limits limits;
  double terms = 1;           // elements of the largest floating input
  double largest = 0;         // the largest finite |element| of the floating inputs
  double largest_number = 1;  // the largest |number argument| (a Python scalar operand, alpha), 1 at least
  int floating_inputs = 0;    // floating tensor inputs: two of them may be multiplied
  double reduced = 1;         // terms per element of the leaf judged, as a reduction has them: terms / its elements
  bool leaf_beyond = false;   // the float64 value of the leaf judged leaves the dtype's range somewhere
};

// A value within this factor of the dtype's largest leaves a formula with small constants no room
// (x * 6 / 6 in hardswish, (e^x + e^-x) / 2 in cosh): its overflow there is the dtype's limit.
constexpr double kHeadroom = 16;

// What probes of the float64 function near the inputs say of one element (moves, outside);
// computed only for a mismatch the other rules leave standing.
struct Near {
  double moves = 0;  // how far the float64 value moves when the inputs move by their rounding
  // The weight with which the inputs' inf and NaN elements enter the float64 value (NaN: unknown).
  double non_finite_weight = std::nan("");
  // Taken one at a time: the infinity the value tends to where those entering with weights above
  // rounding are infinities of one sign (NaN: none, or unknown), and whether the kernel multiplies
  // one of them by 0 (an infinity there alone gives NaN in a value affine in it).
  double limit = std::nan("");
  bool zero_weight_touch = false;
  // Where the float64 kernel leaves its own range at the inputs' place in the dtype's range (far
  // up, far down): its value there, scaled back.
  std::array<std::optional<Complex>, 2> outside;

  // Whether v is what the float64 kernel gives out of its range (non-finite alike, or within
  // `bound` of it): an intermediate leaving the range, as the dtype's kernel did.
  bool like_outside(Complex v, double bound) const {
    for (const std::optional<Complex>& w : outside)
      if (w && (is_finite(v) ? is_finite(*w) && std::abs(v - *w) <= bound : !is_finite(*w))) return true;
    return false;
  }
};

// Where the float64 output leaves the dtype's range, an element that one rounding of the inputs
// moves by a rounding of terms beyond it (moves / unit roundoff > the largest value) is computed
// from terms no kernel in the dtype holds: layer_norm's backward at statistics far from the
// input's, whose per-row sums overflow float32 and turn its elements between to inf - inf.
bool terms_beyond(const Context& c, const Near& near) {
  return c.leaf_beyond && near.moves > c.limits.max * (c.limits.eps / 2);
}

// One side's value v against the float64 value r, with magnitude m (NaN when unknown).
Verdict judge(Complex v, Complex r, double m, const Context& c, Near near = {}) {
  if (v == r || (is_nan(v) && is_nan(r))) return Verdict::Same;
  if (c.limits.exact) return Verdict::WrongValue;
  // A complex value with a non-finite part is judged part by part, as the oracle compares it:
  // (-12.47 + inf·j) agrees with (-12.48 + inf·j) as far as its real part does.
  if ((v.imag() != 0 || r.imag() != 0) && (!is_finite(v) || !is_finite(r)))
    return std::max(judge(Complex(v.real(), 0), Complex(r.real(), 0), m, c, near),
                    judge(Complex(v.imag(), 0), Complex(r.imag(), 0), m, c, near));
  const double size = std::abs(r);
  // Beyond the dtype's range: the exact value, the sum of the finite terms' magnitudes, or a
  // reduction's partial sums of its largest terms (a mean of values near the maximum). NaN is not.
  // A reduction's terms may also be products of two inputs (a norm's squares, a matrix product's),
  // as may an op's of two inputs or of an input and a number argument (addcmul's value·t1·t2).
  const double headroom = c.limits.max / kHeadroom;
  const bool beyond = (std::isfinite(size) && size > headroom) || m > headroom ||
                      c.reduced * c.largest > c.limits.max || c.largest * c.largest_number > c.limits.max ||
                      ((c.reduced > 1 || c.floating_inputs > 1) && c.largest * c.largest > c.limits.max);
  if (!is_finite(v) || !is_finite(r)) {
    if (beyond || terms_beyond(c, near) || near.like_outside(v, 0)) return Verdict::Range;
    // A float64 value non-finite through an infinite or NaN input entering with a weight below the
    // dtype's rounding (an interpolation coordinate 1e-16 off a pixel): whether it gives inf, NaN
    // (0·inf) or is left out is rounding's.
    if (!is_finite(r) && near.non_finite_weight <= 4 * c.limits.eps) return Verdict::Conditioning;
    // The value tends to an infinity while the kernel multiplies a non-finite input by 0: a side or
    // the float64 value giving NaN met 0·inf, which a weight's rounding to exactly 0 decides.
    auto at_limit = [&](Complex z) { return is_nan(z) || z == Complex(near.limit, 0); };
    if (std::isinf(near.limit) && near.zero_weight_touch && at_limit(v) && at_limit(r)) return Verdict::Conditioning;
    return is_finite(r) ? Verdict::NonFinite : Verdict::WrongValue;
  }
  const double error = std::abs(v - r);
  double bound = c.limits.tolerance.atol + c.limits.tolerance.rtol * size;
  if (error <= bound) return Verdict::Arbitration;
  const double terms_size = std::isnan(m) ? size : std::max(size, m);
  if (c.limits.mantissa_bits > 0) {
    // An intermediate rounded to the dtype errs by its ulps at the terms' size; a number argument
    // times an input (alpha * other) is such a term.
    bound += 2 * spacing(std::max(terms_size, c.largest * c.largest_number), c.limits);
    if (error <= bound) return Verdict::LowPrecision;
  }
  // Summation in any order errs by terms·eps of the terms' size; a formula subtracting multiples
  // of an input (remainder's a - b·floor(a/b)) carries that input's rounding, a few eps of it.
  // An ill-conditioned value moves as far when the inputs move by their own rounding.
  bound += c.terms * c.limits.eps * terms_size + 4 * c.limits.eps * c.largest + near.moves;
  if (error <= bound) return Verdict::Conditioning;
  // A finite value far off is wrong even where an intermediate may overflow: overflow gives inf or
  // NaN. Only a value at the edge of the range (the exact one beyond it) is the range's, or the
  // value the float64 kernel gives where its own intermediates leave its range (a norm's 0).
  return size > headroom || near.like_outside(v, bound) ? Verdict::Range : Verdict::WrongValue;
}

// Shortest text that reads back as the same double.
std::string text(double v) { return number_text(v); }
std::string text(Complex z) {
  if (z.imag() == 0) return text(z.real());
  std::string out = "(";
  out.append(text(z.real())).append(z.imag() < 0 ? "" : "+").append(text(z.imag())).append("j)");
  return out;
}

// The mismatch as it is judged so far: the worst element of each side and the element that decided.
struct Judgement {
  Verdict backend = Verdict::Same, baseline = Verdict::Same;
  Verdict decided = Verdict::Same;
  std::string why;

  void add(Verdict x, Verdict b, const std::function<std::string()>& describe) {
    backend = std::max(backend, x), baseline = std::max(baseline, b);
    // The first departing element decides; until one departs, the first needing the loosest rule.
    const Verdict worst = std::max(x, b);
    const bool first_departure = departs(worst) && !departs(decided);
    if (first_departure || (!departs(decided) && worst > decided)) decided = worst, why = describe();
  }
};

// What one output leaf is judged against: the float64 leaf, the float64 leaf with the call's number
// arguments rounded to the inputs' dtype (nullptr when none is), and the magnitude leaf (nullptr
// when unknown).
struct References {
  const Leaf& exact;
  const Leaf* rounded_numbers;
  const Leaf* magnitude;
  at::Tensor moves;                        // flat, per element (Near); undefined when not probed
  std::vector<Outside> outside;            // per far scale
  at::Tensor non_finite_weights;           // flat, per element (Near); undefined when not probed
  at::Tensor limits, zero_weight_touches;  // flat, per element (Near); undefined when not probed
};

// A value judged against the float64 value, or, better, against the float64 value of the call
// with its number arguments rounded (the rounding of an input to the dtype: low precision).
Verdict judge(Complex v, Complex r, std::optional<Complex> rounded, double m, const Context& c, Near near) {
  const Verdict verdict = judge(v, r, m, c, near);
  if (verdict <= Verdict::LowPrecision || !rounded) return verdict;
  return judge(v, *rounded, m, c, near) <= Verdict::LowPrecision ? Verdict::LowPrecision : verdict;
}

// Judges the elements where a backend's leaf x and the baseline's b differ. `precision` is the
// dtype the backend computed in when it cast its results back (oracle.h Output::precision).
void judge_leaf(const Leaf& x, const Leaf& b, const References& refs, std::optional<at::ScalarType> precision,
                Context c, Judgement& j) {
  const Leaf& r = refs.exact;
  const at::ScalarType dtype = x.value.scalar_type();
  c.limits = limits_of(dtype);
  if (!c.limits.exact && precision) c.limits = limits_of(*precision);
  c.reduced = std::max(1.0, c.terms / static_cast<double>(std::max<int64_t>(x.value.numel(), 1)));
  auto where = [&](int64_t i) {
    return "output" + (x.path.empty() ? "" : " " + x.path) + index_text(i, x.value.sizes());
  };
  const bool complex = at::isComplexType(dtype) || at::isComplexType(r.value.scalar_type());
  const at::Tensor xs = flat_values(x.value, complex), bs = flat_values(b.value, complex);
  const at::Tensor rs = flat_values(r.value, complex);
  c.leaf_beyond = rs.numel() > 0 && rs.abs().gt(c.limits.max).any().item<bool>();
  const at::Tensor ms = refs.magnitude ? flat_values(refs.magnitude->value, complex).abs() : at::Tensor();
  const at::Tensor rounded = refs.rounded_numbers ? flat_values(refs.rounded_numbers->value, complex) : at::Tensor();
  auto value_at = [complex](const at::Tensor& t, int64_t i) {
    return complex ? t.data_ptr<Complex>()[i] : Complex(t.data_ptr<double>()[i], 0);
  };
  if (c.limits.exact) {  // integral and bool: compared in their own dtype, not through double
    auto flags = [](const at::Tensor& t) { return t.contiguous().view(-1); };
    const at::Tensor exact = r.value.to(dtype);
    const at::Tensor near = refs.rounded_numbers ? refs.rounded_numbers->value.to(dtype) : exact;
    const at::Tensor differ = flags(x.value.ne(b.value));
    const at::Tensor off_x = flags(x.value.ne(exact)), off_b = flags(b.value.ne(exact));
    const at::Tensor far_x = flags(x.value.ne(near)), far_b = flags(b.value.ne(near));
    auto verdict = [](const at::Tensor& off, const at::Tensor& far, int64_t i) {
      return !off.data_ptr<bool>()[i]  ? Verdict::Same
             : far.data_ptr<bool>()[i] ? Verdict::WrongValue
                                       : Verdict::LowPrecision;
    };
    for (int64_t i = 0; i < differ.numel(); ++i)
      if (differ.data_ptr<bool>()[i])
        j.add(verdict(off_x, far_x, i), verdict(off_b, far_b, i), [&] { return where(i); });
    return;
  }
  for (int64_t i = 0, n = xs.numel(); i < n; ++i) {
    const Complex xv = value_at(xs, i), bv = value_at(bs, i), rv = value_at(rs, i);
    if (xv == bv || (is_nan(xv) && is_nan(bv))) continue;
    const double mv = ms.defined() ? ms.data_ptr<double>()[i] : std::nan("");
    const auto rr = rounded.defined() ? std::optional<Complex>(value_at(rounded, i)) : std::nullopt;
    Near near;
    if (refs.moves.defined()) near.moves = refs.moves.data_ptr<double>()[i];
    if (refs.non_finite_weights.defined()) near.non_finite_weight = refs.non_finite_weights.data_ptr<double>()[i];
    if (refs.limits.defined()) {
      near.limit = refs.limits.data_ptr<double>()[i];
      near.zero_weight_touch = refs.zero_weight_touches.data_ptr<bool>()[i];
    }
    for (size_t k = 0; k < refs.outside.size() && k < near.outside.size(); ++k)
      if (refs.outside[k].missed.data_ptr<bool>()[i]) near.outside[k] = value_at(refs.outside[k].value, i);
    j.add(judge(xv, rv, rr, mv, c, near), judge(bv, rv, rr, mv, c, near), [&] {
      return where(i) + ": " + text(xv) + " vs baseline " + text(bv) + ", float64 " + text(rv) +
             (std::isnan(mv) ? "" : ", magnitude " + text(mv)) + " over " + text(c.terms) + " terms";
    });
  }
}

// What the call's inputs tell every element's bound: the largest floating input's elements, their
// largest finite magnitude, and the largest number argument.
Context context_of(const Call& call) {
  Context c;
  for (const at::Tensor& t : floating_inputs(call)) {
    if (t.numel() == 0) continue;
    c.terms = std::max(c.terms, static_cast<double>(t.numel()));
    ++c.floating_inputs;
    c.largest = std::max(c.largest, in_float64(t, Inputs::Absolute, false).abs().max().item<double>());
  }
  if (call.op) {
    const auto& params = call.op->schema().arguments();
    for (size_t i = 0; i < params.size() && i < call.args.size(); ++i) {
      const c10::IValue& v = call.args[i];
      if (element_type(params[i])->kind() == c10::TypeKind::NumberType && (v.isDouble() || v.isInt()))
        c.largest_number = std::max(c.largest_number, std::abs(v.isDouble() ? v.toDouble() : double(v.toInt())));
    }
  }
  return c;
}

// The dtype the call's floating tensor inputs promote to, when it is below float64 (its kernels
// then take number arguments in it), or nullopt.
std::optional<at::ScalarType> input_dtype(const Call& call) {
  std::optional<at::ScalarType> promoted;
  for (const at::Tensor& t : floating_inputs(call))
    promoted = promoted ? at::promoteTypes(*promoted, t.scalar_type()) : t.scalar_type();
  if (!promoted || c10::toRealValueType(*promoted) == at::kDouble) return std::nullopt;
  return c10::toRealValueType(*promoted);
}

// The magnitude of each output element's terms: the larger of the op on the inputs' absolute
// values and on them with all but the first negated (a - b's terms are |a| + |b|, not |a| - |b|).
// A leaf is None where neither evaluates to the float64 value's shape.
std::vector<Leaf> magnitudes(const Call& call, const std::vector<Leaf>& reference) {
  std::vector<Leaf> out(reference.size(), Leaf{"", {}, false, true});  // None: unknown
  for (Inputs inputs : {Inputs::Absolute, Inputs::AbsoluteOthersNegated}) {
    std::vector<Leaf> probe;
    try {
      probe = flatten(contract_outputs(call, evaluate_in_float64(call, inputs)));
    } catch (const std::exception&) { continue; }  // no magnitude this way
    if (probe.size() != reference.size()) continue;
    for (size_t i = 0; i < probe.size(); ++i) {
      if (probe[i].none || reference[i].none || !same_structure(probe[i], reference[i])) continue;
      if (!is_floating(probe[i].value)) continue;  // integral and bool outputs compare exactly
      at::Tensor m = probe[i].value.abs().to(at::kDouble);
      if (out[i].none) out[i] = Leaf{reference[i].path, m, false, false};
      else out[i].value = at::fmax(out[i].value, m);
    }
  }
  return out;
}

}  // namespace

std::optional<Triage> triage(const Call& call, const Output& output, const c10::IValue& baseline) {
  const std::vector<Leaf> xs = flatten(output.value), bs = flatten(baseline);
  if (xs.size() != bs.size()) return std::nullopt;
  for (size_t i = 0; i < xs.size(); ++i)
    if (!same_structure(xs[i], bs[i]) || (!xs[i].none && xs[i].value.scalar_type() != bs[i].value.scalar_type()))
      return std::nullopt;

  std::vector<Leaf> rs;
  try {
    rs = flatten(contract_outputs(call, evaluate_in_float64(call, Inputs::AsGiven)));
  } catch (const std::exception& e) {
    return Triage{"no_reference", "", std::string("the float64 evaluation failed: ") + e.what()};
  }
  if (rs.size() != xs.size())
    return Triage{"no_reference", "", "the float64 evaluation gives " + std::to_string(rs.size()) + " outputs"};
  const std::vector<Leaf> ms = magnitudes(call, rs);

  const std::optional<at::ScalarType> dtype = input_dtype(call);  // nullopt: the inputs are float64
  std::vector<Leaf> rounded;  // numbers rounded to the inputs' dtype, when that is below float64
  if (dtype && has_number_arguments(call)) {
    try {
      rounded = flatten(contract_outputs(call, evaluate_in_float64(call, Inputs::AsGiven, *dtype)));
    } catch (const std::exception&) {}  // refused with rounded numbers: the float64 value judges alone
  }

  const Context context = context_of(call);
  // Every leaf judged, with what probes near the inputs say (per leaf: moves, out of range,
  // infinity weights) if any.
  auto judge_all = [&](const Probes& near) {
    Judgement j;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (xs[i].none) continue;
      auto matching = [&](const std::vector<Leaf>& leaves) {
        return leaves.size() == rs.size() && same_structure(leaves[i], rs[i]) ? &leaves[i] : nullptr;
      };
      auto leaf = [i](const std::vector<at::Tensor>& per_leaf) {
        return i < per_leaf.size() ? per_leaf[i] : at::Tensor();
      };
      const Leaf* magnitude = ms[i].none ? nullptr : &ms[i];
      judge_leaf(
          xs[i], bs[i],
          References{rs[i], matching(rounded), magnitude, leaf(near.moves),
                     i < near.outside.size() ? near.outside[i] : std::vector<Outside>{}, leaf(near.non_finite_weights),
                     leaf(near.one_at_a_time.limit), leaf(near.one_at_a_time.zero_weight_touch)},
          output.precision, context, j);
    }
    return j;
  };
  for (size_t i = 0; i < xs.size(); ++i)
    if (!xs[i].none && !same_structure(xs[i], rs[i]))
      return Triage{"no_reference", "", "the float64 evaluation's output " + xs[i].path + " differs in shape"};
  Judgement j = judge_all(Probes{});
  // A mismatch still standing, on inputs below float64, is probed near its inputs: ill-conditioning
  // and intermediates out of range show there (only then: each probe evaluates the op again).
  if (departs(j.decided) && dtype && call.op) j = judge_all(probe_near(call, rs, *dtype, limits_of(*dtype).eps));
  const bool x_departs = departs(j.backend), b_departs = departs(j.baseline);
  std::string blame = x_departs && b_departs ? "both" : x_departs ? "backend" : b_departs ? "baseline" : "none";
  // Inputs already in float64 make the float64 evaluation the baseline's own call: it cannot say
  // which side is wrong, only whether the rules explain the difference.
  if (!dtype && !call.module) {
    blame.clear();
    j.why += " (the inputs are float64 already: the float64 value is eager's own, and blames no side)";
  }
  return Triage{verdict_name(j.decided), blame, j.why};
}

}  // namespace opsfuzz::runner
