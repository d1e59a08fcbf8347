#include "runner/triage_probes.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>

#include "runner/op_facts.h"

namespace opsfuzz::runner::triage_detail {
namespace {

// The relative rounding of one operation in the type a kernel of this dtype computes in: float32
// for float32, float16 and bfloat16 (whose kernels compute in float32), float64 for float64.
double unit_roundoff(at::ScalarType dtype) {
  return std::ldexp(1.0, c10::toRealValueType(dtype) == at::kDouble ? -53 : -24);
}

// The float64 outputs of the call with each floating tensor input x fed as fn(x in float64, x's
// dtype); integral and bool inputs as given. Empty when the op refuses them.
std::vector<Leaf> probe(const Call& call, const std::function<at::Tensor(const at::Tensor&, at::ScalarType)>& fn) {
  try {
    return flatten(contract_outputs(call, evaluate_with(
                                              call,
                                              [&](const at::Tensor& t) {
                                                if (!is_floating(t)) return t;
                                                return fn(in_float64(t, Inputs::AsGiven, false), t.scalar_type());
                                              },
                                              std::nullopt)));
  } catch (const std::exception&) { return {}; }
}

// Leaf i of a probe as flat float64 (complex128) values, when it has the reference's structure.
at::Tensor probed_leaf(const std::vector<Leaf>& leaves, const std::vector<Leaf>& reference, size_t i, bool complex) {
  if (leaves.size() != reference.size() || leaves[i].none || !same_structure(leaves[i], reference[i]) ||
      !is_floating(leaves[i].value))
    return at::Tensor();
  return flat_values(leaves[i].value, complex);
}

// How far each element of the float64 value moves when the floating inputs move by one rounding
// of their dtype's kernels: every element up, every element down, alternately up and down, and
// down and up (a rounding goes either way: float32 may place a grid coordinate 0.75 pixel below
// float64's, which one rounding down reaches, while one up crosses a fold); and, where there are
// several floating inputs, each of the first 8 alone up and down: an element and a statistic
// equal to it (layer_norm's input at its mean) move apart only so. Kept where a move by half a
// rounding moves it a quarter as far at least: a continuous function there, kinks and folds
// allowed (a jump, such as round's at a half, which half a rounding does not reach, explains
// nothing). The rounding of
// an intermediate the size of an input moves a kernel's result as much (grid_sampler's
// coordinates, unnormalized in float32, off by a fraction of a pixel).
std::vector<at::Tensor> moves(const Call& call, const std::vector<Leaf>& reference) {
  struct Move {
    bool alternate;
    int64_t alone;  // the floating input moved alone (in the order probe meets them), -1: all
  };
  std::vector<Move> patterns = {{false, -1}, {true, -1}};
  constexpr int64_t kAlone = 8;  // inputs moved alone at most (a tensor list may hold many)
  if (const auto n = static_cast<int64_t>(floating_inputs(call).size()); n > 1)
    for (int64_t k = 0; k < std::min(n, kAlone); ++k) patterns.push_back({false, k});
  std::vector<at::Tensor> out(reference.size());
  for (const Move& move : patterns)
    for (double sign : {1.0, -1.0}) {
      auto moved = [&](double k) {
        int64_t input = 0;
        return probe(call, [&](const at::Tensor& x, at::ScalarType dtype) {
          if (move.alone >= 0 && input++ != move.alone) return x;
          at::Tensor step = at::full({x.numel()}, sign * k * unit_roundoff(dtype), at::kDouble);
          if (move.alternate) step = step.mul(at::arange(x.numel(), at::kLong).remainder(2).mul(-2).add(1));
          return x.contiguous().mul(step.add(1).view(x.sizes()));
        });
      };
      const std::vector<Leaf> once = moved(1), half = moved(0.5);
      for (size_t i = 0; i < reference.size(); ++i) {
        if (reference[i].none || !is_floating(reference[i].value)) continue;
        const bool complex = at::isComplexType(reference[i].value.scalar_type());
        const at::Tensor r = flat_values(reference[i].value, complex);
        const at::Tensor a = probed_leaf(once, reference, i, complex), b = probed_leaf(half, reference, i, complex);
        if (!a.defined() || !b.defined()) continue;
        const at::Tensor d1 = a.sub(r).abs().to(at::kDouble), d_half = b.sub(r).abs().to(at::kDouble);
        const at::Tensor smooth = at::isfinite(d1) & at::isfinite(d_half) & d_half.ge(d1.mul(0.25));
        const at::Tensor m = at::where(smooth, d1, at::zeros_like(d1));
        out[i] = out[i].defined() ? at::fmax(out[i], m) : m;
      }
    }
  return out;
}

// The exponent of the dtype's largest value: float64's is 1024.
int max_exponent(at::ScalarType dtype) {
  switch (c10::toRealValueType(dtype)) {
    case at::kHalf: return 16;
    case at::kFloat:
    case at::kBFloat16: return 128;
    default: return 1024;
  }
}

// Where a leaf is homogeneous in the floating inputs, f(t·x) = t^d·f(x), told from r = f(x) and
// rt = f(2^-8·x): the degree d of its first telling element (finite, non-zero at both scales) and
// the elements that share it. An epsilon added to a variance (group_norm's) bends homogeneity
// where the variance is small, so elements are judged one by one, within 1e-4. An element 0 (or the
// same infinity) at both scales stays so at any degree, but tells nothing of its own: it counts
// where every telling element is homogeneous (a zero of fmod(-9, y) with an integral -9, which is
// not scaled, does not), or in a leaf of such elements alone, taken as degree 0. nullopt when no
// element tells.
struct Homogeneity {
  int degree;
  at::Tensor elements;  // bool, flat: the elements homogeneous of that degree
};
std::optional<Homogeneity> homogeneity(const at::Tensor& r, const at::Tensor& rt) {
  constexpr int kStep = 8;
  const at::Tensor telling = at::isfinite(r) & at::isfinite(rt) & r.abs().gt(1e-200) & rt.abs().gt(0);
  const at::Tensor zeros = (r.eq(0) | at::isinf(r)) & rt.eq(r);  // 0, or the same infinity
  int d = 0;
  if (telling.any().item<bool>()) {
    const double first = r.masked_select(telling).abs()[0].item<double>();
    const double first_t = rt.masked_select(telling).abs()[0].item<double>();
    d = static_cast<int>(std::lround(std::log2(first / first_t) / kStep));
    if (d < -4 || d > 4) return std::nullopt;
  } else if (!zeros.any().item<bool>()) {
    return std::nullopt;
  }
  const at::Tensor scaled_back = rt.mul(std::ldexp(1.0, kStep * d));
  const at::Tensor homogeneous = telling & r.sub(scaled_back).abs().le(r.abs().mul(1e-4));
  const bool all_telling = homogeneous.eq(telling).all().item<bool>();
  return Homogeneity{d, (all_telling ? homogeneous | zeros : homogeneous).contiguous()};
}

// Where the float64 kernel itself leaves its range at the inputs' place in the dtype's range. For a
// leaf homogeneous in the floating inputs (degree d), the inputs scaled by S, the ratio of
// float64's largest value to the dtype's, and by 1/S for its smallest, should give S^d (S^-d) times
// the float64 value; an element that comes out otherwise had an intermediate leave float64's range
// there (a norm's |x|^p, |x|^-p), as the dtype's kernel may at the inputs as given. Per leaf, per
// scale: where it missed, and its value there scaled back.
std::vector<std::vector<Outside>> outside(const Call& call, const std::vector<Leaf>& reference, at::ScalarType dtype) {
  std::vector<std::vector<Outside>> out(reference.size());
  auto scaled = [&](double by) { return probe(call, [by](const at::Tensor& x, at::ScalarType) { return x.mul(by); }); };
  const std::vector<Leaf> small = scaled(std::ldexp(1.0, -8));
  const int e = 1024 - max_exponent(dtype);
  std::vector<std::pair<int, std::vector<Leaf>>> far;  // (exponent of the scale, probe)
  for (int sign : {1, -1}) far.emplace_back(sign * e, scaled(std::ldexp(1.0, sign * e)));
  for (size_t i = 0; i < reference.size(); ++i) {
    if (reference[i].none || !is_floating(reference[i].value)) continue;
    const bool complex = at::isComplexType(reference[i].value.scalar_type());
    const at::Tensor r = flat_values(reference[i].value, complex), rt = probed_leaf(small, reference, i, complex);
    if (!rt.defined()) continue;
    const std::optional<Homogeneity> h = homogeneity(r, rt);
    if (!h) continue;
    for (const auto& [exponent, leaves] : far) {
      const at::Tensor rs = probed_leaf(leaves, reference, i, complex);
      if (!rs.defined()) continue;
      const double half = std::ldexp(1.0, exponent * h->degree / 2);  // S^d in two steps: S^d alone may overflow
      const at::Tensor expected = r.mul(half).mul(half);
      // An infinity stays one: where an infinite input makes the value ±inf, NaN at the far scale
      // is the float64 kernel's own finite terms overflowing into the opposite infinity.
      const at::Tensor predictable =
          (at::isfinite(expected) & (expected.abs().ge(DBL_MIN) | r.eq(0))) | at::isinf(expected);
      const at::Tensor missed = at::where(at::isinf(expected), rs.ne(expected),
                                          ~at::isfinite(rs) | rs.sub(expected).abs().gt(expected.abs().mul(1e-6)));
      out[i].push_back(Outside{(h->elements & predictable & missed).contiguous(), rs.div(half).div(half).contiguous()});
    }
  }
  return out;
}

// How much of the inputs' non-finite elements (inf, NaN) each element of the float64 value takes,
// where it is affine in them: every such input element replaced by t·2^100 (an infinity's sign
// kept, then all positive, so that opposite ones cannot cancel), t = 1, 2, 3; the value's step per
// 2^100, the larger of the two; NaN where the steps differ (log(t·2^100) is no weight) or a probe
// fails. Per leaf, flat; empty when every floating input is finite.
// The stand-in for an input's inf or NaN element, and its multiples: large, finite, exact in float64.
constexpr double kStandIn = 0x1p100;

// Values f0, f1, f2 of the float64 function at stand-ins kStandIn apart: its step per kStandIn
// (the weight the stand-in enters with), and where it is affine in it (finite steps agreeing
// within 1e-6; log(t·2^100) has no weight).
struct Weight {
  at::Tensor weight, affine;
};
Weight weight_of(const at::Tensor& f0, const at::Tensor& f1, const at::Tensor& f2) {
  const at::Tensor step = f1.sub(f0), next = f2.sub(f1);
  return {step.abs().to(at::kDouble).div(kStandIn),
          at::isfinite(step) & at::isfinite(next) & next.sub(step).abs().le(step.abs().fmax(next.abs()).mul(1e-6))};
}

std::vector<at::Tensor> non_finite_weights(const Call& call, const std::vector<Leaf>& reference) {
  bool infinite = false;
  for (const at::Tensor& t : floating_inputs(call)) infinite = infinite || !at::isfinite(t).all().item<bool>();
  if (!infinite) return {};
  std::vector<at::Tensor> out(reference.size());
  for (bool keep_sign : {true, false}) {
    auto replaced = [&](double t) {
      return probe(call, [&](const at::Tensor& x, at::ScalarType) {
        const at::Tensor sign = at::where(at::isnan(x), at::ones_like(x), x.sign());
        return at::where(at::isfinite(x), x, keep_sign ? sign.mul(t * kStandIn) : at::full_like(x, t * kStandIn));
      });
    };
    const std::vector<Leaf> one = replaced(1), two = replaced(2), three = replaced(3);
    for (size_t i = 0; i < reference.size(); ++i) {
      if (reference[i].none || !is_floating(reference[i].value)) continue;
      const bool complex = at::isComplexType(reference[i].value.scalar_type());
      const at::Tensor f1 = probed_leaf(one, reference, i, complex), f2 = probed_leaf(two, reference, i, complex),
                       f3 = probed_leaf(three, reference, i, complex);
      at::Tensor w = at::full({flat_values(reference[i].value, complex).numel()}, std::nan(""), at::kDouble);
      if (f1.defined() && f2.defined() && f3.defined()) {
        const Weight entering = weight_of(f1, f2, f3);
        w = at::where(entering.affine, entering.weight, w);
      }
      if (out[i].defined())  // both probes must tell: NaN in either stays NaN
        w = at::where(w.isnan() | out[i].isnan(), at::full_like(w, std::nan("")), at::fmax(out[i], w));
      out[i] = w;
    }
  }
  return out;
}

// The inputs' non-finite elements taken one at a time (at most 128 of them), per leaf: the infinity
// each element of the float64 value tends to (Near::limit) and whether the kernel multiplies a
// non-finite input by 0 there (Near::zero_weight_touch). Element k is replaced by 0, 2^100 and
// 2^101 (its sign kept; NaN as +), and by an infinity, the others by 0: its weight is the step per
// 2^100 where the value is affine in it, and NaN from the infinity in a value affine in it is
// 0·inf (a neighbour of weight 0, or the element itself read again with weight 0 at an edge).
OneAtATime one_at_a_time(const Call& call, const std::vector<Leaf>& reference, double eps) {
  constexpr size_t kMost = 128;
  std::vector<double> signs;  // of the non-finite input elements, in the order probe() visits them: 0 for NaN
  for (const at::Tensor& t : floating_inputs(call)) {
    const at::Tensor x = t.to(at::kDouble).contiguous();
    const double* p = x.data_ptr<double>();
    for (int64_t i = 0; i < x.numel(); ++i)
      if (!std::isfinite(p[i])) signs.push_back(std::isnan(p[i]) ? 0 : p[i] > 0 ? 1 : -1);
  }
  if (signs.empty() || signs.size() > kMost) return {};
  auto with = [&](size_t chosen, double value) {
    size_t seen = 0;
    return probe(call, [&](const at::Tensor& x, at::ScalarType) {
      at::Tensor out = x.contiguous().clone();
      double* p = out.data_ptr<double>();
      for (int64_t i = 0; i < out.numel(); ++i)
        if (!std::isfinite(p[i])) p[i] = seen++ == chosen ? value : 0;
      return out.view(x.sizes());
    });
  };
  OneAtATime out{std::vector<at::Tensor>(reference.size()), std::vector<at::Tensor>(reference.size())};
  const double rounding = 4 * eps;
  for (size_t k = 0; k < signs.size(); ++k) {
    const double sign = signs[k] == 0 ? 1 : signs[k];
    const std::vector<Leaf> zero = with(k, 0), once = with(k, sign * kStandIn), twice = with(k, 2 * sign * kStandIn),
                            infinite = with(k, sign * INFINITY);
    for (size_t i = 0; i < reference.size(); ++i) {
      if (reference[i].none || !is_floating(reference[i].value) || at::isComplexType(reference[i].value.scalar_type()))
        continue;
      const at::Tensor f0 = probed_leaf(zero, reference, i, false), f1 = probed_leaf(once, reference, i, false),
                       f2 = probed_leaf(twice, reference, i, false), fi = probed_leaf(infinite, reference, i, false);
      at::Tensor& limit = out.limit[i];
      if (!limit.defined()) {
        const int64_t n = flat_values(reference[i].value, false).numel();
        limit = at::zeros({n}, at::kDouble);  // 0: no infinity entered yet; NaN: unknown, or mixed
        out.zero_weight_touch[i] = at::zeros({n}, at::kBool);
      }
      if (!f0.defined() || !f1.defined() || !f2.defined() || !fi.defined()) {
        limit.fill_(std::nan(""));
        continue;
      }
      const auto [weight, affine] = weight_of(f0, f1, f2);
      const at::Tensor enters = affine & weight.gt(rounding);
      // An infinity entering: the limit takes its sign, unless another sign (or a NaN) entered.
      const double to = signs[k] == 0 ? std::nan("") : sign * INFINITY;
      const at::Tensor nan_fill = at::full_like(limit, std::nan(""));
      limit = at::where(enters & limit.eq(0), at::full_like(limit, to), limit);
      limit = at::where((enters & limit.ne(to)) | ~affine, nan_fill, limit);
      out.zero_weight_touch[i] |= affine & fi.isnan() & ~f0.isnan();
    }
  }
  for (at::Tensor& limit : out.limit)  // no infinity entered: no limit
    if (limit.defined()) limit = at::where(limit.eq(0), at::full_like(limit, std::nan("")), limit);
  return out;
}

}  // namespace

Probes probe_near(const Call& call, const std::vector<Leaf>& reference, at::ScalarType dtype, double eps) {
  return Probes{moves(call, reference), outside(call, reference, dtype), non_finite_weights(call, reference),
                one_at_a_time(call, reference, eps)};
}

}  // namespace opsfuzz::runner::triage_detail
