// Matrix products and distances: mm, bmm, addmm, addmv, baddbmm, outer, _pdist_forward,
// _cdist_forward, linear, einsum. The shared matrix-multiply rules (operands of one dtype, matching inner dims,
// an added self broadcastable to the product, beta and alpha) are the `product` builder's.
#include "specs/db/families.h"

#include "argtypes/rng.h"

#include <array>
#include <cctype>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <tuple>

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

// The first operand of a product: of rank `rank` (>= 1 when 0), numeric.
ArgSpec first_operand(const std::string& op, const char* name, int64_t rank) {
  return Tensor(name)
      .dtype(In(listed(numeric_dtypes())))
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

// The shape of the product of `a` and `b` (a rank-1 `b` is a vector).
IntList product_shape(const Ctx& c, const std::string& a, const std::string& b) {
  IntList shape(c.shape(a).begin(), c.shape(a).end() - 1);
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
  IntList shape(c.shape("input").begin(), c.shape("input").end() - 1);
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

// ---- einsum ------------------------------------------------------------------------------
// The equation is drawn from the tensors' shapes: a valid one labels each dim of each tensor,
// and each rule has its own equations breaking it alone (one Gen per rule: the valid
// candidates of a rule are those that keep it).

constexpr int kEllipsis = -1;
char letter(int i) { return static_cast<char>(i < 26 ? 'a' + i : 'A' + i - 26); }

// A term of subscripts per tensor (letters 0..51, kEllipsis) and the output (none: implicit).
struct Equation {
  std::vector<std::vector<int>> terms;
  std::optional<std::vector<int>> output;
  bool spaced = false;  // ", " between terms

  std::string text() const {
    auto term = [](const std::vector<int>& t) {
      std::string s;
      for (int l : t) s += l == kEllipsis ? std::string("...") : std::string(1, letter(l));
      return s;
    };
    std::string s;
    for (size_t i = 0; i < terms.size(); ++i) s += (i ? (spaced ? ", " : ",") : "") + term(terms[i]);
    return output ? s + "->" + term(*output) : s;
  }
  bool has_ellipsis(size_t i) const { return !terms[i].empty() && terms[i][0] == kEllipsis; }
  // The position in terms[i] of the subscript of dim d (labelled dims only).
  size_t at(size_t i, int64_t d, int64_t rank) const { return size_t(int64_t(terms[i].size()) - (rank - d)); }
  std::vector<int> used() const {
    std::vector<int> u;
    for (const auto& t : terms)
      for (int l : t)
        if (l != kEllipsis && std::find(u.begin(), u.end(), l) == u.end()) u.push_back(l);
    return u;
  }
  int fresh() const {
    auto u = used();
    for (int l = 0;; ++l)
      if (std::find(u.begin(), u.end(), l) == u.end() && (!output || std::find(output->begin(), output->end(), l) == output->end())) return l;
  }
};

// Whether the leading `covered[i]` dims of each shape broadcast, aligned from the right.
bool ellipses_broadcast(const std::vector<IntList>& shapes, const std::vector<int64_t>& covered) {
  const int64_t widest = covered.empty() ? 0 : *std::max_element(covered.begin(), covered.end());
  for (int64_t p = 0; p < widest; ++p) {
    int64_t seen = 1;
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (covered[i] <= p) continue;
      int64_t s = shapes[i][size_t(covered[i] - 1 - p)];
      if (s != 1 && seen != 1 && s != seen) return false;
      if (s != 1) seen = s;
    }
  }
  return true;
}

template <class T> void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = 0; i + 1 < v.size(); ++i) std::swap(v[i], v[i + rng.index(v.size() - i)]);
}

// How many leading dims of each shape an ellipsis covers (all 0 unless `ellipsis`).
std::vector<int64_t> ellipsis_cover(const std::vector<IntList>& shapes, bool ellipsis, Rng& rng) {
  std::vector<int64_t> covered(shapes.size(), 0);
  if (!ellipsis) return covered;
  for (size_t i = 0; i < shapes.size(); ++i) covered[i] = rng.uniform_int(0, int64_t(shapes[i].size()));
  if (!ellipses_broadcast(shapes, covered)) std::fill(covered.begin(), covered.end(), 0);
  return covered;
}

// Draws subscripts: one shared by dims that broadcast (a repeated one within a term only by dims
// of one size), and a new one only while the product of the subscripts' sizes stays small.
struct Labeller {
  std::vector<int64_t> size = std::vector<int64_t>(52, -1);  // per subscript, -1: unused
  std::vector<int> letters;
  size_t next = 0;

  explicit Labeller(Rng& rng) : letters(52) {
    std::iota(letters.begin(), letters.end(), 0);
    shuffle(letters, rng);
  }
  int64_t product() const {
    int64_t p = 1;
    for (int64_t s : size) p *= std::max<int64_t>(s, 1);
    return p;
  }
  // The subscript of dim d of `shape`, whose dims from `first` on have subscripts `term` so far.
  int label(const std::vector<int>& term, const IntList& shape, int64_t first, int64_t d, Rng& rng) {
    int64_t s = shape[size_t(d)];
    std::vector<int> same_term, other;
    for (int64_t e = first; e < d; ++e)
      if (shape[size_t(e)] == s) same_term.push_back(term[term.size() - size_t(d - e)]);
    for (int l = 0; l < 52; ++l) {
      int64_t ls = size[size_t(l)];
      if (ls >= 0 && std::find(term.begin(), term.end(), l) == term.end() && (ls == 1 || s == 1 || ls == s)) other.push_back(l);
    }
    int l;
    if (!same_term.empty() && rng.chance(0.15)) l = same_term[rng.index(same_term.size())];
    else if (!other.empty() && (rng.chance(0.5) || product() * std::max<int64_t>(s, 1) > 4096)) l = other[rng.index(other.size())];
    else l = letters[next++];
    if (size[size_t(l)] < 0 || (size[size_t(l)] == 1 && s != 1)) size[size_t(l)] = s;
    return l;
  }
};

// An explicit output (some used subscripts in any order, the ellipsis maybe) or none (implicit).
std::optional<std::vector<int>> draw_output(const Equation& eq, bool ellipsis, Rng& rng) {
  if (!rng.chance(0.6)) return std::nullopt;
  auto used = eq.used();
  shuffle(used, rng);
  used.resize(rng.index(used.size() + 1));
  if (ellipsis && rng.chance(0.5)) used.insert(used.begin() + int64_t(rng.index(used.size() + 1)), kEllipsis);
  return used;
}

// A valid equation for tensors of `shapes`, drawn at random.
Equation valid_equation(const std::vector<IntList>& shapes, Rng& rng) {
  Equation eq;
  eq.spaced = rng.chance(0.1);
  bool ellipsis = rng.chance(0.3);
  std::vector<int64_t> covered = ellipsis_cover(shapes, ellipsis, rng);
  Labeller labeller(rng);
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<int> term;
    if (ellipsis && (covered[i] > 0 || rng.chance(0.5))) term.push_back(kEllipsis);
    for (int64_t d = covered[i]; d < int64_t(shapes[i].size()); ++d) term.push_back(labeller.label(term, shapes[i], covered[i], d, rng));
    eq.terms.push_back(std::move(term));
  }
  eq.output = draw_output(eq, ellipsis, rng);
  return eq;
}

// The dims labelled by terms[i]: its last ones.
int64_t first_labelled(const Equation& eq, size_t i, int64_t rank) {
  return rank - (int64_t(eq.terms[i].size()) - (eq.has_ellipsis(i) ? 1 : 0));
}

// Each breaks one rule of `eq` (nullopt where the shapes leave no way to).
using Breaker = std::optional<std::string> (*)(Equation, const std::vector<IntList>&, Rng&);

std::optional<std::string> wrong_term_count(Equation eq, const std::vector<IntList>&, Rng& rng) {
  if (eq.terms.size() >= 2 && rng.chance(0.5)) eq.terms.pop_back();
  else eq.terms.push_back(eq.terms.back());
  return eq.text();
}

std::optional<std::string> wrong_subscript_count(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  size_t i = rng.index(shapes.size());
  auto& term = eq.terms[i];
  if (eq.has_ellipsis(i)) {
    while (int64_t(term.size()) - 1 <= int64_t(shapes[i].size())) term.push_back(eq.fresh());
  } else if (!term.empty() && rng.chance(0.5)) {
    term.pop_back();
  } else {
    term.push_back(eq.fresh());
  }
  return eq.text();
}

// A subscript repeated in a term for two dims of different sizes.
std::optional<std::string> diagonal_mismatch(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  std::vector<std::tuple<size_t, size_t, size_t>> pairs;  // term, position labelled again, its new label's position
  for (size_t i = 0; i < shapes.size(); ++i) {
    int64_t rank = int64_t(shapes[i].size()), first = first_labelled(eq, i, rank);
    for (int64_t d = first; d < rank; ++d)
      for (int64_t e = d + 1; e < rank; ++e)
        if (shapes[i][size_t(d)] != shapes[i][size_t(e)]) pairs.emplace_back(i, eq.at(i, e, rank), eq.at(i, d, rank));
  }
  if (pairs.empty()) return std::nullopt;
  auto [i, e, d] = pairs[rng.index(pairs.size())];
  eq.terms[i][e] = eq.terms[i][d];
  return eq.text();
}

// A subscript shared by dims of two tensors whose sizes differ and are not 1.
std::optional<std::string> broadcast_mismatch(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  std::vector<std::tuple<size_t, size_t, int>> pairs;  // term, position, the label it takes
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t j = i + 1; j < shapes.size(); ++j) {
      int64_t ri = int64_t(shapes[i].size()), rj = int64_t(shapes[j].size());
      for (int64_t d = first_labelled(eq, i, ri); d < ri; ++d)
        for (int64_t e = first_labelled(eq, j, rj); e < rj; ++e) {
          int64_t a = shapes[i][size_t(d)], b = shapes[j][size_t(e)];
          int l = eq.terms[i][eq.at(i, d, ri)];
          bool in_j = std::find(eq.terms[j].begin(), eq.terms[j].end(), l) != eq.terms[j].end();
          if (a != 1 && b != 1 && a != b && !in_j) pairs.emplace_back(j, eq.at(j, e, rj), l);
        }
    }
  if (pairs.empty()) return std::nullopt;
  auto [j, e, l] = pairs[rng.index(pairs.size())];
  eq.terms[j][e] = l;
  return eq.text();
}

std::optional<std::string> repeated_output(Equation eq, const std::vector<IntList>&, Rng& rng) {
  auto used = eq.used();
  if (used.empty()) return std::nullopt;
  if (!eq.output || std::count_if(eq.output->begin(), eq.output->end(), [](int l) { return l != kEllipsis; }) == 0)
    eq.output = std::vector<int>{used[rng.index(used.size())]};
  for (int l : *eq.output)
    if (l != kEllipsis) { eq.output->push_back(l); break; }
  return eq.text();
}

std::optional<std::string> output_not_in_inputs(Equation eq, const std::vector<IntList>&, Rng&) {
  int l = eq.fresh();
  if (!eq.output) eq.output = std::vector<int>{};
  eq.output->push_back(l);
  return eq.text();
}

std::optional<std::string> not_a_letter(Equation eq, const std::vector<IntList>&, Rng& rng) {
  std::string s = eq.text();
  std::vector<size_t> at;
  for (size_t k = 0; k < s.size(); ++k)
    if (std::isalpha(static_cast<unsigned char>(s[k]))) at.push_back(k);
  if (at.empty()) return "1" + s;
  s[at[rng.index(at.size())]] = "0123456789_"[rng.index(11)];
  return s;
}

// Ellipses over leading dims that do not broadcast: two terms cover more dims with theirs (the
// subscripts of those dims dropped, and from the output where no term keeps them).
std::optional<std::string> ellipsis_mismatch(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  std::vector<int64_t> covered(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) covered[i] = first_labelled(eq, i, int64_t(shapes[i].size()));
  std::vector<std::vector<int64_t>> mismatched;  // covers of two more tensors that do not broadcast
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t j = i + 1; j < shapes.size(); ++j)
      for (int64_t ci = covered[i]; ci <= int64_t(shapes[i].size()); ++ci)
        for (int64_t cj = covered[j]; cj <= int64_t(shapes[j].size()); ++cj) {
          std::vector<int64_t> cover = covered;
          cover[i] = ci, cover[j] = cj;
          if (!ellipses_broadcast(shapes, cover)) mismatched.push_back(std::move(cover));
        }
  if (mismatched.empty()) return std::nullopt;
  const std::vector<int64_t>& cover = mismatched[rng.index(mismatched.size())];
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (cover[i] == covered[i]) continue;
    std::vector<int>& term = eq.terms[i];
    std::vector<int> kept(term.end() - (int64_t(shapes[i].size()) - cover[i]), term.end());
    term = {kEllipsis};
    term.insert(term.end(), kept.begin(), kept.end());
  }
  if (eq.output) {
    const std::vector<int> used = eq.used();
    std::erase_if(*eq.output, [&](int l) { return l != kEllipsis && std::find(used.begin(), used.end(), l) == used.end(); });
  }
  return eq.text();
}

struct EinsumRule {
  const char* text;
  Breaker breaker;
};
const EinsumRule kEinsumRules[] = {
    {"has one term per entry of tensors", wrong_term_count},
    {"has one subscript per dim of each entry of tensors in its term (at most that many with an ellipsis)", wrong_subscript_count},
    {"repeats a subscript within a term only for dims of tensors of one size", diagonal_mismatch},
    {"labels with one subscript only dims of tensors that broadcast (equal sizes or 1)", broadcast_mismatch},
    {"repeats no subscript in its output", repeated_output},
    {"has only output subscripts that appear in the terms of tensors", output_not_in_inputs},
    {"has only letters for subscripts", not_a_letter},
    {"covers with ellipses only dims of tensors that broadcast (equal sizes or 1, aligned from the right)",
     ellipsis_mismatch},
};
constexpr size_t kEinsumRuleCount = std::size(kEinsumRules);
using EinsumVerdicts = std::array<bool, kEinsumRuleCount>;  // per rule: kept

// An equation as torch.einsum reads it (spaces dropped), each character where a subscript stands
// taken as one: a letter (0..51), an ellipsis, or a character that is not a letter (kNotALetter
// plus the character, so that equal ones are one subscript).
constexpr int kNotALetter = 1000;
Equation parse_equation(std::string_view text) {
  Equation eq;
  eq.terms.emplace_back();
  auto current = [&]() -> std::vector<int>& { return eq.output ? *eq.output : eq.terms.back(); };
  for (size_t k = 0; k < text.size(); ++k) {
    const char ch = text[k];
    std::vector<int>& term = current();
    if (ch == ' ') continue;
    if (ch == ',' && !eq.output) {
      eq.terms.emplace_back();
    } else if (text.substr(k, 2) == "->" && !eq.output) {
      eq.output.emplace(), ++k;
    } else if (text.substr(k, 3) == "..." && std::find(term.begin(), term.end(), kEllipsis) == term.end()) {
      term.push_back(kEllipsis), k += 2;
    } else if (std::isalpha(static_cast<unsigned char>(ch)) && static_cast<unsigned char>(ch) < 128) {
      term.push_back(std::islower(static_cast<unsigned char>(ch)) ? ch - 'a' : ch - 'A' + 26);
    } else {
      term.push_back(kNotALetter + static_cast<unsigned char>(ch));
    }
  }
  return eq;
}

// The dim of a rank-`rank` tensor that position p of `term` labels: the subscripts before an
// ellipsis label the leading dims, those after it the trailing ones.
int64_t labelled_dim(const std::vector<int>& term, size_t p, int64_t rank) {
  auto ellipsis = std::find(term.begin(), term.end(), kEllipsis);
  if (ellipsis == term.end() || term.begin() + int64_t(p) < ellipsis) return int64_t(p);
  return rank - int64_t(term.size() - p);
}

// Which rules of einsum the equation keeps for tensors of `shapes`. Each rule is judged where the
// ones it builds on leave it a meaning: subscript counts on the terms that have a tensor, sizes on
// the terms whose count fits their tensor; a term whose repeated subscript labels dims of two sizes
// gives that subscript no size to broadcast. With no tensor at all, no rule has a meaning.
EinsumVerdicts einsum_verdicts(std::string_view text, const std::vector<IntList>& shapes) {
  EinsumVerdicts kept;
  kept.fill(true);
  if (shapes.empty()) return kept;
  const Equation eq = parse_equation(text);
  auto is_letter = [](int l) { return l >= 0 && l < 52; };
  auto count = [](const std::vector<int>& t) { return int64_t(t.size()) - std::count(t.begin(), t.end(), kEllipsis); };
  kept[0] = eq.terms.size() == shapes.size();
  std::map<int, std::vector<int64_t>> sizes;  // per subscript, its size in each term that gives it one
  std::vector<IntList> ellipsis_dims;         // per term with an ellipsis, the dims it covers
  for (size_t i = 0; i < std::min(eq.terms.size(), shapes.size()); ++i) {
    const std::vector<int>& term = eq.terms[i];
    const int64_t rank = int64_t(shapes[i].size());
    const bool ellipsis = count(term) < int64_t(term.size());
    if (ellipsis ? count(term) > rank : count(term) != rank) {
      kept[1] = false;
      continue;
    }
    if (ellipsis) {
      const int64_t before = std::find(term.begin(), term.end(), kEllipsis) - term.begin();
      ellipsis_dims.emplace_back(shapes[i].begin() + before, shapes[i].begin() + before + (rank - count(term)));
    }
    std::map<int, std::set<int64_t>> in_term;
    for (size_t p = 0; p < term.size(); ++p)
      if (term[p] != kEllipsis) in_term[term[p]].insert(shapes[i][size_t(labelled_dim(term, p, rank))]);
    for (const auto& [l, s] : in_term) {
      if (s.size() > 1) kept[2] = false;
      else sizes[l].push_back(*s.begin());
    }
  }
  for (const auto& [l, s] : sizes) {
    int64_t seen = 1;
    for (int64_t v : s) {
      if (v != 1 && seen != 1 && v != seen) kept[3] = false;
      if (v != 1) seen = v;
    }
  }
  std::vector<int64_t> widths;
  for (const IntList& dims : ellipsis_dims) widths.push_back(int64_t(dims.size()));
  kept[7] = ellipses_broadcast(ellipsis_dims, widths);
  auto all_letters = [&](const std::vector<int>& t) {
    return std::all_of(t.begin(), t.end(), [&](int l) { return l == kEllipsis || is_letter(l); });
  };
  kept[6] = std::all_of(eq.terms.begin(), eq.terms.end(), all_letters) && (!eq.output || all_letters(*eq.output));
  if (!eq.output) return kept;
  const std::vector<int> used = eq.used();
  for (size_t p = 0; p < eq.output->size(); ++p) {
    const int l = (*eq.output)[p];
    if (l == kEllipsis) continue;
    if (std::count(eq.output->begin(), eq.output->end(), l) > 1) kept[4] = false;
    if (std::find(used.begin(), used.end(), l) == used.end()) kept[5] = false;
  }
  return kept;
}

// Whether the equation breaks rule r of einsum and no other.
bool breaks_only(std::string_view text, const std::vector<IntList>& shapes, size_t r) {
  const EinsumVerdicts kept = einsum_verdicts(text, shapes);
  for (size_t k = 0; k < kEinsumRuleCount; ++k)
    if (kept[k] == (k == r)) return false;
  return true;
}

std::vector<IntList> operand_shapes(const Ctx& c) {
  std::vector<IntList> shapes;
  for (const auto& t : c.meta("tensors").tensors) shapes.push_back(t.shape);
  return shapes;
}

// The candidate equations for the tensors' shapes: valid ones, and for each rule some breaking it alone.
struct EquationPool {
  std::vector<std::string> valid;
  std::array<std::vector<std::string>, kEinsumRuleCount> broken;
};
EquationPool equation_pool(const std::vector<IntList>& shapes) {
  uint64_t seed = 0x5eed;
  for (const IntList& shape : shapes) {
    seed = derive_seed(seed, shape.size());
    for (int64_t s : shape) seed = derive_seed(seed, uint64_t(s));
  }
  Rng rng(seed);
  EquationPool pool;
  if (shapes.empty()) return {{"", "i"}, {}};  // no tensor: every equation is refused
  std::set<std::string> seen;
  for (int k = 0; k < 16 && pool.valid.size() < 8; ++k) {
    Equation eq = valid_equation(shapes, rng);
    if (seen.insert(eq.text()).second) pool.valid.push_back(eq.text());
    for (size_t r = 0; r < kEinsumRuleCount; ++r)
      if (pool.broken[r].size() < 2)
        if (auto bad = kEinsumRules[r].breaker(eq, shapes, rng); bad && breaks_only(*bad, shapes, r) && seen.insert(*bad).second)
          pool.broken[r].push_back(*bad);
  }
  return pool;
}

Cond einsum_rule(size_t r) {
  return Gen(kEinsumRules[r].text, [r](const Ctx& c) {
    std::vector<IntList> shapes = operand_shapes(c);
    EquationPool pool = equation_pool(shapes);
    GenSets g([r, shapes](const Value& v) {
      const auto* text = std::get_if<std::string>(&v);
      return text && einsum_verdicts(*text, shapes)[r];
    });
    for (const auto& e : pool.valid) g.valid.emplace_back(e);
    for (size_t k = 0; k < kEinsumRuleCount; ++k)
      for (const auto& e : pool.broken[k]) (k == r ? g.invalid : g.valid).emplace_back(e);
    return g;
  });
}

// einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
// path is a contraction order (opt_einsum's): pairs of indices into the operands left, each
// pair replaced by its product at the end.
Spec einsum() {
  const std::string op = "einsum.default";
  auto bmm_dtypes = deviation("einsum.bool_float16_products",
      "two tensors or more are contracted through bmm, whose CPU kernel has no bool and float16 path (\"bmm\" not "
      "implemented for 'Bool'); one tensor is summed and takes them",
      "ops-fuzz sweep einsum.default --config contract,half --seed 0 --max 300");
  auto summed_integral = deviation("einsum.summed_integral_products",
      "with two tensors or more, a uint8, int8, int16 or int32 tensor whose own dims are summed before the product "
      "turns int64 (sum promotes them) and bmm then refuses the mix (\"expected scalar type Int but found Long\")",
      "ops-fuzz sweep einsum.default --config contract --seed 0 --max 300");
  auto one_path = deviation("einsum.path_of_one_tensor",
      "with one tensor, only the length of path is checked: any index is taken where opt_einsum's path holds 0",
      "ops-fuzz sweep einsum.default --invalid --config contract --seed 0 --max 300");
  ArgSpec equation = String("equation").deps("tensors");
  for (size_t r = 0; r < kEinsumRuleCount; ++r) equation.value(einsum_rule(r));
  auto count = [](const Ctx& c) { return c.length("tensors"); };
  return Spec(op)
      .in(std::move(equation))
      .in(TensorList("tensors")
            .length(Ge(1))
            .length(Scope(Le(4)))  // bounds the work of a sample
            .rank(Scope(Le(4)))
            // Products promote mixed dtypes and contractions refuse them; the documentation says neither.
            .dtype(Scope(Eq("tensors[0].dtype", [](const Ctx& c) -> std::optional<S> {
              if (c.entry() <= 0) return std::nullopt;
              return c.self().tensors.at(0).dtype;
            })))
            .dtype(Avoid(bmm_dtypes, NotIn("{bool, float16} for two tensors or more", [](const Ctx& c) {
              return c.self().tensors.size() >= 2 ? std::vector{S::Bool, S::Half} : std::vector<S>{};
            })))
            .dtype(Avoid(summed_integral, NotIn("{uint8, int8, int16, int32} for two tensors or more", [](const Ctx& c) {
              return c.self().tensors.size() >= 2 ? std::vector{S::Byte, S::Char, S::Short, S::Int} : std::vector<S>{};
            }))))
      .kw(DimListOpt("path").deps("tensors")
            .length(Eq("1 for one tensor, 2 * (len(tensors) - 1) otherwise", [=](const Ctx& c) {
              return count(c) == 1 ? int64_t{1} : 2 * (count(c) - 1);
            }))
            .value(Be("[0, len(tensors) - 1 - i // 2] for entry i", [=](const Ctx& c) -> std::optional<std::vector<double>> {
              if (count(c) == 1) return std::nullopt;
              return std::vector<double>{0, double(count(c) - 1 - c.position() / 2)};
            }))
            .value(Ne("path[i - 1] for odd i (an operand is not contracted with itself)", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.position() % 2 == 0) return std::nullopt;
              return c.solved(size_t(c.position() - 1));
            }))
            .value(Unchecked(one_path, Eq("0 for one tensor", [=](const Ctx& c) -> std::optional<int64_t> {
              if (count(c) != 1) return std::nullopt;
              return 0;
            }))));
}

}  // namespace

std::span<const SpecFn> linalg_specs() {
  static constexpr SpecFn table[] = {mm, bmm, addmm, addmv, baddbmm, outer, matmul, pdist_forward, cdist_forward, linear, einsum};
  return table;
}

}  // namespace opsfuzz::db
