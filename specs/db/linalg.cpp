// Matrix products and distances: mm, bmm, addmm, addmv, baddbmm, outer, _pdist_forward,
// _cdist_forward, linear (einsum: einsum.cpp). The shared matrix-multiply rules (operands of one dtype, matching inner dims,
// an added self broadcastable to the product, beta and alpha) are the `product` builder's.
#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;
using K = ScalarDtype;

// The dtypes of a matrix product: every numeric dtype (no bool); the CPU kernels of 1.13 have no
// float16 path (a deviation of each op).
DeviationRef float16_missing(const std::string& op) {
  return deviation(deviation_id(op, "float16"),
      "the CPU kernel is not implemented for float16 (\"... not implemented for 'Half'\"), though it is for bfloat16",
      "ops-fuzz sweep " + op + " --config contract,half --seed 0 --max 100");
}
// The distance kernels have neither a float16 nor a bfloat16 path.
DeviationRef half_floats_missing(const std::string& op) {
  return deviation(deviation_id(op, "half_floats"),
      "the CPU kernel is not implemented for float16 and bfloat16 (\"... not implemented for 'Half'\")",
      "ops-fuzz sweep " + op + " --config contract,half --seed 0 --max 100");
}

// Whether a product's kernel refuses the tensor being solved beside `other`: its dtype differs
// from other's or is bool.
bool dtype_refused_beside(const Ctx& c, const std::string& other) {
  const S own = c.own_dtype();
  return own != c.dtype(other) || own == S::Bool;
}

// The first operand of a product: of rank `rank` (>= 1 when 0), numeric (complex included).
ArgSpec first_operand(const std::string& op, const char* name, int64_t rank) {
  return Tensor(name)
      .dtype(In(with_complex(listed(numeric_dtypes()))))
      .dtype(Avoid(float16_missing(op), NotIn(std::vector{S::Half})))
      .rank(rank > 0 ? Eq(rank) : Ge(1))
      // An empty product returns before the dtypes are checked.
      .size(Scope(Ge("1 when its dtype is refused", [](const Ctx& c) { return c.own_dtype() == S::Bool ? 1 : 0; })));
}

// The second operand: `first`'s dtype and rank `rank`; its dim `inner` matches `first`'s last
// dim, and a leading batch dim (bmm) matches `first`'s.
// mm and bmm return an empty product before comparing the dtypes (`empty_unchecked`); the
// others compare them first.
ArgSpec second_operand(const std::string& first, const char* name, int64_t rank, bool batched, bool empty_unchecked) {
  std::string inner_text = first + ".size(-1) at dim " + std::to_string(batched ? 1 : 0) +
                           (batched ? ", " + first + ".size(0) at dim 0" : "");
  auto tied = [batched](int64_t dim) { return dim == (batched ? 1 : 0) || (batched && dim == 0); };
  ArgSpec b = Tensor(name);
  b.deps(first)
      .dtype(Eq(first + ".dtype" + (empty_unchecked ? " (unless " + first + " is empty)" : ""),
                [first, empty_unchecked](const Ctx& c) -> std::optional<S> {
        if (empty_unchecked && c.numel(first) == 0) return std::nullopt;
        return c.dtype(first);
      }))
      .rank(Eq(rank))
      .size(Eq(inner_text, [first, batched](const Ctx& c) -> std::optional<int64_t> {
        int64_t inner = batched ? 1 : 0;
        if (c.dim() == inner) return c.size(first, -1);
        if (batched && c.dim() == 0) return c.size(first, 0);
        return std::nullopt;
      }));
  // Some kernels refuse a mismatched or bool dtype only when the product has elements: such
  // samples keep them.
  return b.size(Scope(Ge("1 at its own dims when its dtype differs from " + first + "'s or is bool",
                         [first, tied](const Ctx& c) {
    return dtype_refused_beside(c, first) && !tied(c.dim()) ? 1 : 0;
  })));
}

// A shape without its last dim, the one a product contracts (a zero-dim one, an invalid sample's,
// has none).
IntList all_but_last(const IntList& shape) {
  return IntList(shape.begin(), shape.empty() ? shape.end() : shape.end() - 1);
}

// The shape of the product of `a` and `b` (a rank-1 `b` is a vector).
IntList product_shape(const Ctx& c, const std::string& a, const std::string& b) {
  IntList shape = all_but_last(c.shape(a));
  if (c.rank(b) >= 2) shape.push_back(c.size(b, -1));
  return shape;
}

// beta and alpha: an int for an integral product, an int or a float otherwise (the documentation);
// the kernels convert any Scalar without checking.
ArgSpec coefficient(const std::string& op, const char* name, const std::string& a) {
  auto unchecked = deviation(deviation_id(op, name + std::string("_kind")),
      std::string("a float or bool ") + name + " with integral operands is truncated silently, though the documentation "
      "asks for an int",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 300");
  return Scalar(name).deps(a).dtype(Unchecked(unchecked, In("{int} for an integral " + a + ", {int, float} otherwise",
                                                             [a](const Ctx& c) {
    return c10::isIntegralType(c.dtype(a), false) ? std::vector{K::Int} : std::vector{K::Int, K::Float};
  })));
}

// op(Tensor self, Tensor a, Tensor b, *, Scalar beta=1, Scalar alpha=1): beta * self + alpha * (a @ b),
// self of a's dtype and broadcastable to the product's shape.
// addmv and baddbmm skip the dtype checks of an empty mat or batch1 in some paths, so those are
// generated with elements (a generation limit, not a rule).
ArgSpec nonempty(ArgSpec a) {
  return std::move(a.size(Scope(Ge(1))));
}

// addmm checks self's dtype; addmv and baddbmm cast self silently (`self_dtype_unchecked`).
Spec add_product(const std::string& op, const char* a, int64_t a_rank, const char* b, int64_t b_rank, bool batched,
                 bool self_dtype_unchecked = false) {
  const std::string first = a, second = b;
  Cond self_dtype = Eq(first + ".dtype", [first](const Ctx& c) { return c.dtype(first); });
  if (self_dtype_unchecked)
    self_dtype = Unchecked(deviation(deviation_id(op, "self_dtype"),
        "self of another dtype than " + first + " is cast silently, where addmm refuses it (\"self and mat2 must have "
        "the same dtype\")",
        "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 300"), std::move(self_dtype));
  return Spec(op)
      .in(Tensor("self").deps(a, b)
            .dtype(std::move(self_dtype))
            .rank(Le("the rank of " + first + " @ " + second, [=](const Ctx& c) { return int64_t(product_shape(c, first, second).size()); }))
            .size(In("{1, the product's size at that dim}", [=](const Ctx& c) {
              IntList shape = product_shape(c, first, second);
              int64_t d = c.dim() + int64_t(shape.size()) - c.rank();
              return IntList{1, shape.at(size_t(d))};
            })))
      .in(self_dtype_unchecked ? nonempty(first_operand(op, a, a_rank)) : first_operand(op, a, a_rank))
      .in(second_operand(first, b, b_rank, batched, false))
      .kw(coefficient(op, "beta", first))
      .kw(coefficient(op, "alpha", first));
}

// mm(Tensor self, Tensor mat2) -> Tensor
Spec mm() { return Spec("mm.default").in(first_operand("mm.default", "self", 2)).in(second_operand("self", "mat2", 2, false, true)); }
// bmm(Tensor self, Tensor mat2) -> Tensor
Spec bmm() { return Spec("bmm.default").in(first_operand("bmm.default", "self", 3)).in(second_operand("self", "mat2", 3, true, true)); }
// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
Spec addmm() { return add_product("addmm.default", "mat1", 2, "mat2", 2, false); }
// addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
Spec addmv() { return add_product("addmv.default", "mat", 2, "vec", 1, false, true); }
// baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
Spec baddbmm() { return add_product("baddbmm.default", "batch1", 3, "batch2", 3, true, true); }

// outer(Tensor self, Tensor vec2) -> Tensor: self[:, None] * vec2, so every dtype, promoted.
Spec outer() { return Spec("outer.default").in(Tensor("self").rank(Eq(1))).in(Tensor("vec2").rank(Eq(1))); }

// For the sizes of a batched matrix operand: its batch dims (all but the last two) broadcast with
// those of `arg`, aligned from the right.
Cond batch_dims_broadcastable_with(std::string arg) {
  return Gen("the batch dims broadcastable with " + arg + "'s", [arg](const Ctx& c) -> std::optional<GenSets> {
    int64_t from_end = c.rank() - c.dim();
    if (from_end <= 2 || from_end > c.rank(arg)) return std::nullopt;
    int64_t fixed = c.size(arg, -from_end);
    return split(0, 8, [fixed](int64_t v) { return v == fixed || v == 1 || fixed == 1; });
  });
}

// matmul(Tensor self, Tensor other) -> Tensor: dot, mv, mm or a batched product by the ranks; a
// 1-d other is a vector, and the batch dims (all but the last two) broadcast.
Spec matmul() {
  auto empty = deviation("matmul.empty_operand_dtype_unchecked",
      "operands of different dtypes are taken when one is empty (but for a dot of two vectors, which compares "
      "dtypes first): the kernel returns before it compares them",
      "ops-fuzz sweep matmul.default --invalid --config contract,empty --seed 0 --max 300");
  auto empty_not_dot = [](const Inputs& in) {
    const at::Tensor &self = in["self"].toTensor(), &other = in["other"].toTensor();
    return (self.numel() == 0 || other.numel() == 0) && (self.dim() > 1 || other.dim() > 1);
  };
  return Spec("matmul.default")
      .in(first_operand("matmul.default", "self", 0))
      .in(Tensor("other").deps("self")
            .dtype(Eq("self.dtype", [](const Ctx& c) { return c.dtype("self"); }))
            .rank(Ge(1))
            .size(Scope(Ge("1 at its own dims when its dtype differs from self's or is bool", [](const Ctx& c) {
              return dtype_refused_beside(c, "self") && c.dim() != std::max<int64_t>(c.rank() - 2, 0) ? 1 : 0;
            })))
            .size(Eq("self.size(-1) at dim max(other.rank - 2, 0)", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.dim() == std::max<int64_t>(c.rank() - 2, 0)) return c.size("self", -1);
              return std::nullopt;
            }))
            .size(batch_dims_broadcastable_with("self")))
      .unchecked_on(empty, "self or other is empty, and not both vectors", empty_not_dot, {"other.dtype == self.dtype"});
}

ArgSpec distance_p() { return Float("p").value(Ge(0)); }

// _pdist_forward(Tensor self, float p=2.) -> Tensor: the pairwise distances of self's rows. The
// rules are pdist's (its documentation and checks); _pdist_forward checks none of them.
Spec pdist_forward() {
  auto unchecked = deviation("_pdist_forward.unchecked_rules",
      "_pdist_forward checks neither self's rank and dtype nor the sign of p (pdist does) and computes whatever it "
      "is given",
      "ops-fuzz sweep _pdist_forward.default --invalid --config contract --seed 0 --max 300");
  auto layouts = deviation("_pdist_forward.non_contiguous_self",
      "the kernel refuses non-contiguous self (\"_pdist_forward requires contiguous input\"); pdist makes it "
      "contiguous first",
      "ops-fuzz sweep _pdist_forward.default --config contract,transposed --seed 0 --max 100");
  auto half = half_floats_missing("_pdist_forward.default");
  return Spec("_pdist_forward.default")
      .in(Tensor("self")
            .contiguous(layouts)
            .dtype(Unchecked(unchecked, In(listed(floating_dtypes()))))
            .dtype(Avoid(half, NotIn(std::vector{S::Half, S::BFloat16})))
            .rank(Unchecked(unchecked, Eq(2))))
      .in(Float("p").value(Unchecked(unchecked, Ge(0))));
}

// _cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor: x1 [.., P, M] and
// x2 [.., R, M] of one floating dtype, batch dims broadcast.
Spec cdist_forward() {
  auto half = half_floats_missing("_cdist_forward.default");
  auto empty = deviation("_cdist_forward.empty_dtype_unchecked",
      "x1 and x2 of different floating dtypes are taken when either is empty: the kernel returns an empty result "
      "before it compares them",
      "ops-fuzz sweep _cdist_forward.default --invalid --config contract,empty --seed 0 --max 1000");
  return Spec("_cdist_forward.default")
      .in(Tensor("x1")
            .dtype(In(listed(floating_dtypes())))
            .dtype(Avoid(half, NotIn(std::vector{S::Half, S::BFloat16})))
            .rank(Ge(2)))
      .in(Tensor("x2").deps("x1")
            .dtype(Eq("x1.dtype", [](const Ctx& c) { return c.dtype("x1"); }))
            .rank(Ge(2))
            .size(Eq("x1.size(-1) at the last dim", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.dim() == c.rank() - 1) return c.size("x1", -1);
              return std::nullopt;
            }))
            .size(batch_dims_broadcastable_with("x1")))
      .in(distance_p())
      .in(IntOpt("compute_mode").value(Be(0, 2)))
      .unchecked_on(empty, "x1 or x2 is empty and x2 is floating (the kernel checks that first)",
                    [](const Inputs& in) {
                      return (is_empty(in["x1"]) || is_empty(in["x2"])) && in["x2"].toTensor().is_floating_point();
                    },
                    {"x2.dtype == x1.dtype"});
}

// The shape of linear's result: input's batch dims, then weight.size(0) for a 2-d weight.
IntList linear_shape(const Ctx& c) {
  IntList shape = all_but_last(c.shape("input"));
  if (c.rank("weight") == 2) shape.push_back(c.size("weight", 0));
  return shape;
}

// For the sizes of a tensor added in place to linear's result: broadcastable to it (each size
// 1 or the result's at that dim, aligned from the right).
Cond broadcastable_to_result() {
  return Gen("broadcastable to the shape of input @ weight.T", [](const Ctx& c) -> std::optional<GenSets> {
    IntList shape = linear_shape(c);
    int64_t at = int64_t(shape.size()) - (c.rank() - c.dim());
    if (at < 0) return std::nullopt;
    int64_t fixed = shape[size_t(at)];
    return split(0, 8, [fixed](int64_t v) { return v == fixed || v == 1; });
  });
}

// linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor: input @ weight.T + bias for
// input [..., in], weight [out, in] or [in], bias broadcastable to the result.
Spec linear() {
  const std::string op = "linear.default";
  auto fused = [](const Ctx& c) { return c.rank("input") == 2 || c.rank("input") == 3; };
  auto vector_weight = deviation("linear.vector_weight_with_bias",
      "with a bias, a 2-d input (or a contiguous 3-d one) takes the fused addmm path, which refuses a 1-d weight "
      "(\"mat2 must be a matrix, got 1-D tensor\") that the matmul path takes",
      "ops-fuzz sweep linear.default --config contract --seed 0 --max 300");
  auto flattened = deviation("linear.flattened_3d_bias",
      "a contiguous 3-d input with a bias is flattened to (N * L, in) for addmm, which refuses a 2-d bias that "
      "broadcasts to the (N, L, out) result but not to (N * L, out) (\"The expanded size of the tensor ...\")",
      "ops-fuzz sweep linear.default --config contract --seed 0 --max 300");
  auto bias_dtype = deviation("linear.bias_dtype",
      "a bias of another dtype than input is refused by the fused addmm path (2-d input, \"self and mat2 must have "
      "the same dtype\") but added in place by the others, cast silently",
      "ops-fuzz sweep linear.default --invalid --config contract --seed 0 --max 300");
  auto empty_input = deviation("linear.empty_input_dtypes",
      "an empty input is multiplied by a weight of another dtype without comparing them (matmul returns early), "
      "unless a 1-d weight or a bias makes the kernel compare them",
      "ops-fuzz sweep linear.default --invalid --config contract,empty --seed 0 --max 300");
  return Spec(op)
      .in(first_operand(op, "input", 0))
      .in(Tensor("weight").deps("input")
            .dtype(Eq("input.dtype (input not empty)", [](const Ctx& c) -> std::optional<S> {
              if (c.numel("input") == 0) return std::nullopt;
              return c.dtype("input");
            }))
            .dtype(Unchecked(empty_input, Eq("input.dtype (input empty)", [](const Ctx& c) -> std::optional<S> {
              if (c.numel("input") != 0) return std::nullopt;
              return c.dtype("input");
            })))
            .rank(Be(1, 2))
            .size(Eq("input.size(-1) at the last dim", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.dim() == c.rank() - 1) return c.size("input", -1);
              return std::nullopt;
            }))
            .size(Scope(Ge("1 at dim 0 of a 2-d weight when its dtype differs from input's or is bool", [](const Ctx& c) {
              return dtype_refused_beside(c, "input") && c.rank() == 2 && c.dim() == 0 ? 1 : 0;
            }))))
      .in(TensorOpt("bias").deps("input", "weight")
            .optional(Avoid(vector_weight, Named("bias is None when weight is 1-d and input is 2-d or 3-d",
                                                 Eq("True then", [=](const Ctx& c) -> std::optional<bool> {
              if (c.rank("weight") == 1 && fused(c)) return true;
              return std::nullopt;
            }))))
            .dtype(Unchecked(bias_dtype, Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); })))
            .rank(Le("the rank of input @ weight.T", [](const Ctx& c) { return int64_t(linear_shape(c).size()); }))
            .rank(Avoid(flattened, Le("1 when input is 3-d", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("input") == 3) return 1;
              return std::nullopt;
            })))
            .size(broadcastable_to_result()));
}

}  // namespace

std::span<const SpecFn> linalg_specs() {
  static constexpr SpecFn table[] = {mm, bmm, addmm, addmv, baddbmm, outer, matmul, pdist_forward, cdist_forward, linear};
  return table;
}

}  // namespace opsfuzz::db
