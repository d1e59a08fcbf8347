#include "specs/db/families.h"

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

std::string op_base(const std::string& op) { return op.substr(0, op.find('.')); }

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

// avg pools over int64: a window whose sum is the lowest int64, divided by divisor_override -1,
// overflows.
ArgSpec avg_input(const std::string& op, const Window& w) {
  auto lowest_by_minus_one = deviation(op_base(op) + ".lowest_sum_by_minus_one",
      "an int64 window summing to the lowest int64 divided by divisor_override -1 kills the process with SIGFPE "
      "(x86 idiv traps on the overflow) instead of wrapping around",
      "ops-fuzz sweep " + op + " --config contract,integral --seed 0 --max 1000");
  return pool_input(w)
      .deps("divisor_override")
      .value(Avoid(lowest_by_minus_one, above_lowest_integer(" when divisor_override is -1", [](const Ctx& c) {
        return !c.is_none("divisor_override") && c.as_int("divisor_override") == -1;
      })));
}

// op(Tensor self, int[n] kernel_size, int[n] stride=[], int[n] padding=0, ...) for a forward pool.
Spec window_pool(std::string op, const Window& w) {
  Spec spec(op);
  spec.in(w.divisor ? avg_input(op, w) : pool_input(w));
  window_args(spec, w);
  return window_rules(spec, w);
}

// The CPU kernels: the 3-d ones have no bfloat16 path, the max ones no int64 path.
const std::vector<S> kMax2dDtypes = {S::Float, S::Double, S::BFloat16};
const std::vector<S> kAvg2dDtypes = {S::Float, S::Double, S::BFloat16, S::Long};
const std::vector<S> kMax3dDtypes = {S::Float, S::Double};
const std::vector<S> kAvg3dDtypes = {S::Float, S::Double, S::Long};

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

}  // namespace

std::span<const SpecFn> pooling_specs() {
  static constexpr SpecFn table[] = {avg_pool1d, avg_pool2d, avg_pool3d, max_pool2d, max_pool2d_with_indices,
                                     max_pool3d_with_indices};
  return table;
}

}  // namespace opsfuzz::db
