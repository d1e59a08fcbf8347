#include "specs/db/families.h"

#include <algorithm>

namespace opsfuzz::db {
using namespace dsl;

namespace {

// index_select(Tensor self, int dim, Tensor index) -> Tensor
Spec index_select() {
  auto many_indices = deviation("index_select.zero_dim_self_many_indices",
      "a zero-dim self with more than one index writes past the end of the result (heap corruption, "
      "often a crash in a later allocation)",
      "ops-fuzz sweep index_select.default --config contract --seed 0 --max 300");
  return Spec("index_select.default")
      .in(Tensor("self"))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Tensor("index").deps("self", "dim")
            .dtype(In(std::vector{c10::ScalarType::Long, c10::ScalarType::Int}))
            .rank(Le(1))
            // An empty dim has no index in range: no indices (implied by the rule on the values).
            .rank(Scope(Eq("1 when self.size(dim) is 0", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("self") > 0 && c.size("self", c.as_int("dim")) == 0) return 1;
              return std::nullopt;
            })))
            .size(Scope(Eq("0 when self.size(dim) is 0", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("self") > 0 && c.size("self", c.as_int("dim")) == 0) return 0;
              return std::nullopt;
            })))
            .size(Avoid(many_indices, Eq("1 when self is zero-dim", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("self") == 0) return 1;
              return std::nullopt;
            })))
            .value(Be(0, expr("self.size(dim) - 1", [](const Ctx& c) {
              return (c.rank("self") == 0 ? 1 : c.size("self", c.as_int("dim"))) - 1;
            }))));
}

// ---- shared by gather and the scatter family ------------------------------------------------

// The size of `arg` at dim d as the kernels see it: a zero-dim tensor counts as [1].
int64_t dim_size(const Ctx& c, std::string_view arg, int64_t d) { return c.rank(arg) == 0 ? 1 : c.size(arg, d); }

// Index tensor values: valid ones in [0, n) (or [-n, n) where the op wraps negative indices),
// invalid ones just outside (by one), so that an unchecked kernel is caught without reading far.
template <class F> Cond index_values(std::string n_text, F n_of, bool wraps) {
  std::string lo = wraps ? "-" + n_text : "0";
  return Gen("in [" + lo + ", " + n_text + ")", [n_of, wraps](const Ctx& c) -> std::optional<GenSets> {
    int64_t n = n_of(c), lo = wraps ? -n : 0;
    if (n == 0) return std::nullopt;  // the index is empty then (a scope on its size)
    GenSets g;
    for (int64_t v = lo; v < n; ++v) g.valid.push_back(v);
    g.invalid.push_back(lo - 1);
    g.invalid.push_back(n);
    return g;
  });
}

// A tensor of the rank of `arg`: zero-dim and 1-d alike, as the kernels treat them.
Cond rank_of(const std::string& arg) {
  return In(arg + ".rank (0 and 1 alike)", [arg](const Ctx& c) {
    int64_t r = c.rank(arg);
    return r <= 1 ? IntList{0, 1} : IntList{r};
  });
}

// The index of gather and scatter: int64, of self's rank, sizes at most self's except along dim
// (and at most src's everywhere when there is a src), values a position along self's dim.
ArgSpec gather_index(bool src) {
  ArgSpec index = Tensor("index").deps("self", "dim");
  if (src) index.deps("src");
  std::string bound = src ? "src.size(d), and self.size(d) for d != dim" : "self.size(d) for d != dim";
  return index
      .dtype(Eq(c10::ScalarType::Long))
      .rank(rank_of("self"))
      .size(Le(bound, [src](const Ctx& c) -> std::optional<int64_t> {
        std::optional<int64_t> hi;
        int64_t d = c.dim(), dim = c.as_int("dim");
        if (c.rank("self") > 0 && d != (dim < 0 ? dim + c.rank("self") : dim)) hi = dim_size(c, "self", d);
        if (src) hi = std::min(hi.value_or(INT64_MAX), dim_size(c, "src", d));
        return hi;
      }))
      // The kernels return before any check for an empty index: no rule of it could be broken.
      .size(Scope(Ge(1)))
      .value(index_values("self.size(dim)", [](const Ctx& c) { return dim_size(c, "self", c.as_int("dim")); }, false));
}

// Indices need a non-empty self (an index into an empty dim is out of range, and an empty index
// is not checked at all).
ArgSpec indexed_self() { return Tensor("self").size(Scope(Ge(1))); }

// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
Spec gather() {
  return Spec("gather.default")
      .in(indexed_self())
      .in(Dim("dim").deps("self").value(dim_of("self")))
      .in(gather_index(false))
      .kw(Bool("sparse_grad"));
}

Cond same_dtype_as_self() { return Eq("self.dtype", [](const Ctx& c) { return c.dtype("self"); }); }

ArgSpec scatter_src() {
  return Tensor("src").deps("self").dtype(same_dtype_as_self()).rank(rank_of("self"))
      .size(Scope(Ge(1)));  // holds the non-empty index
}

// op(Tensor self, int dim, Tensor index, <source>...): the scatter family.
Spec scatter_base(std::string op, bool src) {
  Spec spec = Spec(std::move(op))
      .in(indexed_self())
      .in(Dim("dim").deps("self").value(dim_of("self")))
      .in(gather_index(src));
  if (src) spec.in(scatter_src());
  return spec;
}

// scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
Spec scatter_src_op() { return scatter_base("scatter.src", true); }
// scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
Spec scatter_add() { return scatter_base("scatter_add.default", true); }
// scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
Spec scatter_value() {
  return scatter_base("scatter.value", false)
      .in(Scalar("value").deps("self").value(fits_dtype("self.dtype", [](const Ctx& c) -> std::optional<c10::ScalarType> {
        return c.dtype("self");
      })));
}
// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)
Spec scatter_reduce() {
  return scatter_base("scatter_reduce.two", true)
      .in(String("reduce").deps("self")
            .value(In(std::vector<std::string>{"sum", "prod", "mean", "amax", "amin"}))
            // The mean of booleans has no bool result: the kernel has no bool mean.
            .value(NotIn("{mean} when self is bool", [](const Ctx& c) -> std::optional<std::vector<std::string>> {
              if (c.dtype("self") != c10::ScalarType::Bool) return std::nullopt;
              return std::vector<std::string>{"mean"};
            })))
      .kw(Bool("include_self"));
}

// nonzero(Tensor self) -> Tensor
Spec nonzero() { return Spec("nonzero.default").in(Tensor("self")); }

// masked_select(Tensor self, Tensor mask) -> Tensor
Spec masked_select() {
  return Spec("masked_select.default")
      .in(Tensor("self").size(Scope(Ge(1))))
      .in(Tensor("mask").deps("self")
            // uint8 masks are deprecated but still taken (with a warning).
            .dtype(In(std::vector{c10::ScalarType::Bool, c10::ScalarType::Byte}))
            .value(Be(0, 1))
            // An empty mask or self selects nothing and checks no value of the mask.
            .size(Scope(Ge(1)))
            .size(broadcastable_with({"self"})));
}

// The dim of self that the d-th dim of src (self without `dim`) stands for.
int64_t self_dim_of(const Ctx& c, int64_t d) {
  int64_t r = c.rank("self"), dim = c.as_int("dim");
  return d < (dim < 0 ? dim + r : dim) ? d : d + 1;
}

// select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor
// src has the shape of self.select(dim, index); it is copied, so its dtype is free.
Spec select_scatter() {
  return Spec("select_scatter.default")
      .in(Tensor("self").rank(Ge(1)))
      .in(Tensor("src").deps("self", "dim")
            .rank(Eq("self.rank - 1", [](const Ctx& c) { return c.rank("self") - 1; }))
            .size(Eq("self.size(d) for the dims of self but dim", [](const Ctx& c) {
              return c.size("self", self_dim_of(c, c.dim()));
            })))
      .in(Dim("dim").deps("self").value(dim_of("self")))
      .in(Int("index").deps("self", "dim"))
      .joint("index in [-self.size(dim), self.size(dim))",
             value("index") >= -size("self", value("dim")) && value("index") < size("self", value("dim")));
}

// The length of self[start:end:step] along dim, with Python's clamping of start and end.
int64_t slice_length(const Ctx& c) {
  int64_t n = c.size("self", c.as_int("dim")), step = c.as_int("step");
  auto clamp = [n](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
  int64_t start = c.is_none("start") ? 0 : clamp(c.as_int("start"));
  int64_t end = c.is_none("end") ? n : clamp(c.as_int("end"));
  return end <= start || step < 1 ? 0 : (end - start + step - 1) / step;
}

// slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)
// src has the shape of the slice of self; it is copied, so its dtype is free.
Spec slice_scatter() {
  return Spec("slice_scatter.default")
      .in(Tensor("self").rank(Ge(1)))
      .in(Tensor("src").deps("self", "dim", "start", "end", "step")
            .rank(Eq("self.rank", [](const Ctx& c) { return c.rank("self"); }))
            .size(Eq("self.size(d), and the length of the slice along dim", [](const Ctx& c) {
              int64_t r = c.rank("self"), dim = c.as_int("dim");
              return c.dim() == (dim < 0 ? dim + r : dim) ? slice_length(c) : c.size("self", c.dim());
            })))
      .in(Dim("dim").deps("self").value(dim_of("self")))
      .in(IntOpt("start"))
      .in(IntOpt("end"))
      .in(Int("step").value(Ge(1)));
}

// embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False,
//           bool sparse=False) -> Tensor
// padding_idx and the flags matter only to the backward.
Spec embedding() {
  auto no_rows = [](const Ctx& c) { return c.size("weight", 0) == 0; };
  return Spec("embedding.default")
      .in(Tensor("weight").rank(Eq(2)))
      .in(Tensor("indices").deps("weight")
            .dtype(In(std::vector{c10::ScalarType::Long, c10::ScalarType::Int}))
            // A weight without rows has no index in range: no indices (implied by the values).
            .rank(Scope(Ge("1 when weight.size(0) is 0", [=](const Ctx& c) { return no_rows(c) ? 1 : 0; })))
            .size(Scope(Eq("0 when weight.size(0) is 0", [=](const Ctx& c) -> std::optional<int64_t> {
              if (no_rows(c) && c.dim() == 0) return 0;
              return std::nullopt;
            })))
            .value(index_values("weight.size(0)", [](const Ctx& c) { return c.size("weight", 0); }, false)))
      .in(Int("padding_idx"))
      .in(Bool("scale_grad_by_freq"))
      .in(Bool("sparse"));
}

}  // namespace

std::span<const SpecFn> indexing_specs() {
  static constexpr SpecFn table[] = {index_select, gather, scatter_src_op, scatter_value, scatter_add, scatter_reduce,
                                     nonzero, masked_select, select_scatter, slice_scatter, embedding};
  return table;
}

}  // namespace opsfuzz::db
