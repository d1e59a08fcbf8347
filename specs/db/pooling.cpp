#include "specs/db/families.h"

#include <algorithm>

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

// What sets the window pools apart: avg_poolNd and max_poolNd (and their backward ops) over n
// spatial dims, the last n of self.
struct Window {
  int64_t n;               // spatial dims
  std::vector<S> dtypes;   // self's
  bool max;                // max pools take a dilation, avg pools count_include_pad
  bool divisor = true;     // avg pools: divisor_override (not avg_pool1d)
  bool fits_kernel = false;  // avg_pool3d's kernel checks that each spatial size of self is >= the kernel's
};

// The rule at every spatial axis.
Term every_axis(int64_t n, const std::function<Term(int64_t)>& rule) {
  Term all = rule(0);
  for (int64_t a = 1; a < n; ++a) all = all && rule(a);
  return all;
}

// One entry for every spatial dim, or one per dim (n of them).
IntList one_or(int64_t n) { return n == 1 ? IntList{1} : IntList{1, n}; }

// The pooled size of a spatial size `in` of self along axis `a`.
Term pooled(const Window& w, Term in, int64_t a) {
  Term stride = ite(length("stride") == 0, param("kernel_size", a), param("stride", a));  // empty: kernel_size
  return window_count(in, param("kernel_size", a), stride, param("padding", a),
                      w.max ? param("dilation", a) : Term(1), value("ceil_mode"));
}

// Pooling takes (C, dims...) or (N, C, dims...); only N may be empty.
ArgSpec pool_input(const Window& w) {
  return Tensor("self")
      .dtype(In(w.dtypes))
      .rank(Be(w.n + 1, w.n + 2))
      .size(Ge("1 except for the batch dim of a batched self (0)",
               [n = w.n](const Ctx& c) { return c.dim() == 0 && c.rank() == n + 2 ? 0 : 1; }));
}

// The rules of every window pool: positive kernel sizes, strides and dilations, padding at most
// half the kernel, and at least one window along each spatial dim of self.
Spec& window_rules(Spec& spec, const Window& w) {
  int64_t n = w.n;
  spec.joint("kernel_size[i] >= 1", positive_entries("kernel_size"))
      .joint("stride[i] >= 1", positive_entries("stride"))
      .joint("padding[i] >= 0", non_negative_entries("padding"));
  if (w.max) spec.joint("dilation[i] >= 1", positive_entries("dilation"));
  spec.joint("padding <= kernel_size / 2", every_axis(n, [](int64_t a) {
    return param("padding", a) <= param("kernel_size", a) / 2;
  }));
  if (w.fits_kernel)
    spec.joint("each spatial dim of self >= kernel_size", every_axis(n, [n](int64_t a) {
      return size("self", a - n) >= param("kernel_size", a);
    }));
  return spec.joint("the pooled size of each spatial dim of self >= 1",
                    every_axis(n, [&w, n](int64_t a) { return pooled(w, size("self", a - n), a) >= 1; }));
}

// The arguments after self: kernel_size, stride, padding (dilation), ceil_mode (count_include_pad,
// divisor_override).
Spec& window_args(Spec& spec, const Window& w) {
  spec.in(LengthList("kernel_size").length(In(one_or(w.n))))
      .in(LengthList("stride").length(In(IntList{0, 1, w.n})))
      .in(LengthList("padding").length(In(one_or(w.n))));
  if (w.max) spec.in(LengthList("dilation").length(In(one_or(w.n))));
  spec.in(Bool("ceil_mode"));
  if (!w.max) spec.in(Bool("count_include_pad"));
  if (w.divisor) spec.in(IntOpt("divisor_override").value(Ne(0)));
  return spec;
}

// For the int64 values an avg pool divides by divisor_override (self's sums, grad_output's
// values): the lowest int64 divided by -1 overflows.
// `divided` names them in the id, `what` in the reason.
Cond no_lowest_by_minus_one(const std::string& op, const std::string& divided, const std::string& what) {
  auto lowest_by_minus_one = deviation(deviation_id(op, "lowest_" + divided + "_by_minus_one"),
      "an int64 " + what + " the lowest int64 divided by divisor_override -1 kills the process with SIGFPE "
      "(x86 idiv traps on the overflow) instead of wrapping around",
      "ops-fuzz sweep " + op + " --config contract,integral --seed 0 --max 1000",
      {kFloatingPointException});
  return Avoid(lowest_by_minus_one, above_lowest_integer(" when divisor_override is -1", [](const Ctx& c) {
    return !c.is_none("divisor_override") && c.as_int("divisor_override") == -1;
  }));
}

// op(Tensor self, int[n] kernel_size, int[n] stride=[], int[n] padding=0, ...) for a forward pool.
Spec window_pool(std::string op, const Window& w) {
  Spec spec(op);
  ArgSpec self = pool_input(w);
  if (w.divisor) self.deps("divisor_override").value(no_lowest_by_minus_one(op, "sum", "window summing to"));
  spec.in(std::move(self));
  window_args(spec, w);
  return window_rules(spec, w);
}

// `grad` (grad_output, indices) has the shape of the forward's result: self's rank, its channels
// and the pooled size of each spatial dim. The kernels check all but the batch dim.
Spec& forward_shape(Spec& spec, const Window& w, const std::string& grad, const DeviationRef& batch) {
  int64_t n = w.n;
  std::string channels = ".size(" + std::to_string(-n - 1) + ")";
  return spec.joint(grad + ".rank == self.rank", rank(grad) == rank("self"))
      .joint(grad + channels + " == self" + channels, size(grad, -n - 1) == size("self", -n - 1))
      .joint(grad + ".size(d) == the pooled size of self.size(d) for each spatial dim d", every_axis(n, [&w, &grad, n](int64_t a) {
        return size(grad, a - n) == pooled(w, size("self", a - n), a);
      }))
      .joint_unchecked(batch, grad + ".size(0) == self.size(0) when self is batched",
                       implies(rank("self") == n + 2, size(grad, 0) == size("self", 0)));
}

// The forward's indices: where in its plane of self each maximum lies (inside its window, which
// no rule on a tensor's values can state; the plane is what keeps the kernel's writes in bounds). The
// kernel writes there unchecked.
ArgSpec max_indices(const std::string& op, int64_t n) {
  auto outside = deviation(deviation_id(op, "indices_unchecked"),
      "indices outside the plane of self are not checked: the kernel writes the gradient there, past the end "
      "of the result",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 300",
      {kAborted, kSegfault, kBusError});
  auto last = expr("the plane of self (its spatial sizes' product) - 1", [n](const Ctx& c) {
    int64_t plane = 1;
    for (int64_t a = 1; a <= n; ++a) plane *= c.size("self", -a);
    return plane - 1;
  });
  return Tensor("indices").deps("self")
      .dtype(Eq(S::Long))
      .value(Unchecked(outside, Be(0, last)));
}

// op_backward(Tensor grad_output, Tensor self, <the forward's arguments>[, Tensor indices]): the
// gradient of a window pool with respect to self.
Spec window_backward(std::string op, const Window& w) {
  auto batch = deviation(deviation_id(op, "batch_unchecked"),
      "the kernel checks every dim of grad_output" + std::string(w.max ? " and indices" : "") +
          " against the forward's result but the batch dim, and reads or writes past the end of the one "
          "that is shorter",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 300",
      {kAborted, kSegfault, kBusError});
  ArgSpec grad = Tensor("grad_output").deps("self").dtype(Eq("self.dtype", [](const Ctx& c) { return c.dtype("self"); }));
  if (w.divisor) grad.deps("divisor_override").value(no_lowest_by_minus_one(op, "gradient", "gradient of"));
  Spec spec(op);
  spec.in(std::move(grad)).in(pool_input(w));
  window_args(spec, w);
  forward_shape(spec, w, "grad_output", batch);
  if (w.max) forward_shape(spec.in(max_indices(op, w.n)), w, "indices", batch);
  return window_rules(spec, w);
}

// The rules of the adaptive pools that their kernels leave unchecked, each a deviation (null:
// checked).
struct Gaps {
  DeviationRef channels = nullptr;      // self's channel dim (in an unbatched self only when `batched_channels`)
  bool batched_channels = false;
  DeviationRef mean = nullptr;          // output_size all ones takes the mean over the spatial dims: self unchecked
  DeviationRef empty_dtype = nullptr;   // self's dtype, when an output size is 0
  DeviationRef negative = nullptr;      // negative output sizes, when the result is empty otherwise
  DeviationRef spatial = nullptr;       // self's spatial sizes (the backward op)
};

bool all_ones(const Ctx& c) {
  const IntList& sizes = c.ints("output_size");
  return std::all_of(sizes.begin(), sizes.end(), [](int64_t s) { return s == 1; });
}
bool has_zero(const Ctx& c) {
  const IntList& sizes = c.ints("output_size");
  return std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s == 0; });
}

// `c` where `holds(c)`, labelled "subject relation text (why)"; broken only under the contract
// when `d` is given (the kernel does not check it there).
Cond where(const std::string& subject, Cond c, const std::string& why, std::function<bool(const Ctx&)> holds,
           const DeviationRef& d = nullptr) {
  std::string sentence = subject + " " + std::string(name(c.suffix)) + " " + c.text + " (" + why + ")";
  c.fn = [fn = c.fn, holds](const Ctx& ctx) -> std::optional<Operand> {
    if (!holds(ctx)) return std::nullopt;
    return fn(ctx);
  };
  c.constant = false;
  c = Named(sentence, c);
  return d ? Unchecked(d, c) : c;
}

// Whether output_size takes the unchecked mean path, or has a 0 that empties the result (when the
// kernel has those gaps).
auto on_mean(const Gaps& u) { return [m = bool(u.mean)](const Ctx& c) { return m && all_ones(c); }; }
auto on_zero(const Gaps& u) { return [e = bool(u.empty_dtype)](const Ctx& c) { return e && has_zero(c); }; }

// self's dtype and rank: checked unless the result is empty or output_size takes the mean path.
ArgSpec& adaptive_dtype_rank(ArgSpec& self, int64_t n, const std::vector<S>& dtypes, const Gaps& u) {
  auto mean = on_mean(u);
  auto zero = on_zero(u);
  if (!u.mean && !u.empty_dtype) return self.dtype(In(dtypes)).rank(Be(n + 1, n + 2));
  self.deps("output_size")
      .dtype(where("self.dtype", In(dtypes), "output_size has no 0 and is not all ones",
                   [=](const Ctx& c) { return !mean(c) && !zero(c); }));
  if (u.empty_dtype) {
    self.dtype(where("self.dtype", In(dtypes), "output_size has a 0", [=](const Ctx& c) { return !mean(c) && zero(c); },
                     u.empty_dtype))
        // nor when the batch or channel dim is empty
        .size(Avoid(u.empty_dtype, where("self.size(d)", Ge(1), "its batch or channel dim d, self.dtype not the kernel's",
                                         [n, dtypes](const Ctx& c) {
                                           return c.dim() < c.rank() - n &&
                                                  std::find(dtypes.begin(), dtypes.end(), c.own_dtype()) == dtypes.end();
                                         })));
  }
  if (!u.mean) return self.rank(Be(n + 1, n + 2));
  return self.dtype(where("self.dtype", In(dtypes), "output_size is all ones", mean, u.mean))
      .rank(where("self.rank", Be(n + 1, n + 2), "output_size is not all ones", [=](const Ctx& c) { return !mean(c); }))
      .rank(where("self.rank", Be(n + 1, n + 2), "output_size is all ones", mean, u.mean));
}

// self's sizes: its spatial and channel dims are not empty.
ArgSpec& adaptive_sizes(ArgSpec& self, int64_t n, const Gaps& u) {
  auto mean = on_mean(u);
  auto spatial = [n](const Ctx& c) { return c.dim() >= c.rank() - n; };
  auto channel = [n](const Ctx& c) { return c.dim() == c.rank() - n - 1; };
  auto channel_unchecked = [n, batched = u.batched_channels](const Ctx& c) { return !batched || c.rank() == n + 1; };
  if (u.mean)
    self.size(where("self.size(d)", Ge(1), "a spatial dim d, output_size is all ones",
                    [=](const Ctx& c) { return mean(c) && spatial(c); }, u.mean));
  return self
      .size(where("self.size(d)", Ge(1), "a spatial dim d" + std::string(u.mean ? ", output_size is not all ones" : ""),
                  [=](const Ctx& c) { return spatial(c) && !mean(c); }, u.spatial))
      .size(where("self.size(d)", Ge(1), "its channel dim d", [=](const Ctx& c) { return channel(c) && !channel_unchecked(c); }))
      .size(where("self.size(d)", Ge(1), u.batched_channels ? "its channel dim d, self unbatched" : "its channel dim d",
                  [=](const Ctx& c) { return channel(c) && channel_unchecked(c); }, u.channels));
}

// self of an adaptive pool: (C, dims...) or (N, C, dims...) of the kernel's dtypes; only N may be
// empty.
ArgSpec adaptive_input(int64_t n, const std::vector<S>& dtypes, const Gaps& u) {
  ArgSpec self = Tensor("self");
  adaptive_dtype_rank(self, n, dtypes, u);
  return adaptive_sizes(self, n, u);
}

// adaptive_avg_poolNd(Tensor self, int[n] output_size) over the last n dims of self; each output
// size is >= 0.
Spec adaptive_pool(std::string op, int64_t n, const std::vector<S>& dtypes, const Gaps& u) {
  Spec spec = Spec(std::move(op))
      .in(adaptive_input(n, dtypes, u))
      .in(LengthList("output_size").length(Eq(n)));
  Term non_negative = non_negative_entries("output_size");
  if (!u.negative) return spec.joint("output_size[i] >= 0", non_negative);
  Term empty = any(elems("output_size"), [](int64_t i) { return elem("output_size", i) == 0; }) ||
               any(dims("self"), [n](int64_t d) { return rank("self") - d > n && size("self", d) == 0; });
  return spec.joint("output_size[i] >= 0 (the result has elements otherwise)", implies(!empty, non_negative))
      .joint_unchecked(u.negative, "output_size[i] >= 0 (the result is empty otherwise)", implies(empty, non_negative));
}

// _adaptive_avg_poolNd_backward(Tensor grad_output, Tensor self): grad_output has the shape of the
// forward's result, self's but for its spatial sizes, which are the output size (>= 1).
Spec adaptive_backward(std::string op, int64_t n, const std::vector<S>& dtypes, const Gaps& u,
                       const DeviationRef& shape) {
  return Spec(std::move(op))
      .in(Tensor("grad_output").deps("self")
            .dtype(Eq("self.dtype", [](const Ctx& c) { return c.dtype("self"); })))
      .in(adaptive_input(n, dtypes, u))
      .joint_unchecked(shape, "grad_output.rank == self.rank", rank("grad_output") == rank("self"))
      .joint_unchecked(shape, "grad_output.size(d) == self.size(d) for each dim d but the spatial ones",
                       all(dims("self"), [n](int64_t d) {
                         return implies(rank("self") - d > n, size("grad_output", d) == size("self", d));
                       }))
      .joint("each spatial dim of grad_output >= 1", every_axis(n, [n](int64_t a) { return size("grad_output", a - n) >= 1; }));
}

// The CPU kernels: the 3-d ones have no bfloat16 path, the max and adaptive ones no int64 path,
// the adaptive 3-d one a float16 path.
const std::vector<S> kMax2dDtypes = {S::Float, S::Double, S::BFloat16};
const std::vector<S> kAvg2dDtypes = {S::Float, S::Double, S::BFloat16, S::Long};
const std::vector<S> kMax3dDtypes = {S::Float, S::Double};
const std::vector<S> kAvg3dDtypes = {S::Float, S::Double, S::Long};
const std::vector<S> kAdaptive3dDtypes = {S::Float, S::Double, S::Half};

// avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False,
//            bool count_include_pad=True) -> Tensor
Spec avg_pool1d() { return window_pool("avg_pool1d.default", {1, kAvg2dDtypes, false, false}); }
// avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//            bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
Spec avg_pool2d() { return window_pool("avg_pool2d.default", {2, kAvg2dDtypes, false}); }
// avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//            bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
Spec avg_pool3d() { return window_pool("avg_pool3d.default", {3, kAvg3dDtypes, false, true, true}); }
// max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1,
//            bool ceil_mode=False) -> Tensor
// Large dilations wrap the output size in 32 bits and read out of bounds: the limits keep every value small.
Spec max_pool2d() { return window_pool("max_pool2d.default", {2, kMax2dDtypes, true, false}); }
// max_pool2d_with_indices(...) -> (Tensor, Tensor), max_pool2d's arguments
Spec max_pool2d_with_indices() { return window_pool("max_pool2d_with_indices.default", {2, kMax2dDtypes, true, false}); }
// max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//                         int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)
Spec max_pool3d_with_indices() { return window_pool("max_pool3d_with_indices.default", {3, kMax3dDtypes, true, false}); }
// avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding,
//                     bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor
Spec avg_pool2d_backward() { return window_backward("avg_pool2d_backward.default", {2, kAvg2dDtypes, false}); }
// max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride,
//     int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor
DeviationRef unchecked_channels(const std::string& op, const std::string& when) {
  return deviation(deviation_id(op, "channels_unchecked"),
      "the kernel checks that self's spatial dims are not empty but not its channel dim" + when +
          ": an empty one is taken (the result is empty)",
      "ops-fuzz sweep " + op + " --invalid --config contract,empty --seed 0 --max 300");
}
DeviationRef mean_path(const std::string& op, const std::string& ranks) {
  return deviation(deviation_id(op, "all_ones_unchecked"),
      "output_size all ones takes the mean over the spatial dims, which checks none of the kernel's rules on "
      "self: an empty spatial dim (NaN result), a float16 self" + ranks + " are taken",
      "ops-fuzz sweep " + op + " --invalid --config contract,empty,half --seed 0 --max 300");
}
DeviationRef empty_dtype(const std::string& op) {
  return deviation(deviation_id(op, "empty_result_dtype_unchecked"),
      "an empty result (an output size of 0, or an empty batch or channel dim) returns before self's dtype is "
      "checked: integral and float16 selfs are taken",
      "ops-fuzz sweep " + op + " --invalid --config contract,empty --seed 0 --max 300");
}
DeviationRef negative_sizes(const std::string& op) {
  return deviation(deviation_id(op, "negative_output_size_unchecked"),
      "negative output sizes are not checked: beside an output size of 0 or an empty batch or channel dim "
      "the result is empty and they are taken",
      "ops-fuzz sweep " + op + " --invalid --config contract,empty --seed 0 --max 1000");
}

// adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor: adaptive_avg_pool2d of self with
// a height of 1.
Spec adaptive_avg_pool1d() {
  std::string op = "adaptive_avg_pool1d.default";  // checks self's rank itself
  return adaptive_pool(op, 1, kMax2dDtypes,
                       {.channels = unchecked_channels(op, ""), .mean = mean_path(op, ""), .empty_dtype = empty_dtype(op)});
}
// adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor: the mean for an output size of
// [1, 1], _adaptive_avg_pool2d otherwise.
Spec adaptive_avg_pool2d() {
  std::string op = "adaptive_avg_pool2d.default";
  return adaptive_pool(op, 2, kMax2dDtypes, {.channels = unchecked_channels(op, ""),
                                             .mean = mean_path(op, ", a rank-2 or rank-5 self"),
                                             .empty_dtype = empty_dtype(op)});
}
// _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
Spec adaptive_avg_pool2d_() {
  std::string op = "_adaptive_avg_pool2d.default";
  return adaptive_pool(op, 2, kMax2dDtypes,
                       {.channels = unchecked_channels(op, ""), .empty_dtype = empty_dtype(op), .negative = negative_sizes(op)});
}
// _adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor
Spec adaptive_avg_pool3d_() {
  std::string op = "_adaptive_avg_pool3d.default";
  return adaptive_pool(op, 3, kAdaptive3dDtypes,
                       {.channels = unchecked_channels(op, " in an unbatched self"), .batched_channels = true,
                        .negative = negative_sizes(op)});
}
// _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor. The kernel checks
// grad_output alone and takes its planes for self's.
Spec adaptive_avg_pool2d_backward_() {
  std::string op = "_adaptive_avg_pool2d_backward.default";
  auto shape = deviation(deviation_id(op, "grad_shape_unchecked"),
      "grad_output's rank, batch and channel dims are not compared with self's: the kernel scatters grad_output's "
      "planes into self's, past the end of the result when grad_output has more",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 300",
      {kSegfault, kAborted});
  auto self_sizes = deviation(deviation_id(op, "self_sizes_unchecked"),
      "self's sizes are not checked: an empty spatial dim makes the kernel write past the end of the empty "
      "result; an empty channel dim of an unbatched self is taken",
      "ops-fuzz sweep " + op + " --invalid --config contract,empty --seed 0 --max 300",
      {kSegfault, kAborted});
  return adaptive_backward(op, 2, kMax2dDtypes,
                           {.channels = self_sizes, .batched_channels = true, .spatial = self_sizes}, shape);
}
Spec max_pool2d_with_indices_backward() {
  return window_backward("max_pool2d_with_indices_backward.default", {2, kMax2dDtypes, true, false});
}

}  // namespace

std::span<const SpecFn> pooling_specs() {
  static constexpr SpecFn table[] = {avg_pool1d, avg_pool2d, avg_pool3d, max_pool2d, max_pool2d_with_indices,
                                     max_pool3d_with_indices, avg_pool2d_backward,
                                     max_pool2d_with_indices_backward, adaptive_avg_pool1d, adaptive_avg_pool2d,
                                     adaptive_avg_pool2d_, adaptive_avg_pool3d_, adaptive_avg_pool2d_backward_};
  return table;
}

}  // namespace opsfuzz::db
