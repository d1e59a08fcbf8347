#include "specs/db/families.h"

#include <algorithm>

namespace opsfuzz::db {
using namespace dsl;

namespace {

// The size of `arg` at dim d as the kernels see it: a zero-dim tensor counts as [1].
int64_t dim_size(const Ctx& c, std::string_view arg, int64_t d) { return c.rank(arg) == 0 ? 1 : c.size(arg, d); }
// self.size(dim), as the kernels see it.
int64_t self_dim_size(const Ctx& c) { return dim_size(c, "self", c.as_int("dim")); }

// index_select(Tensor self, int dim, Tensor index) -> Tensor
Spec index_select() {
  auto many_indices = deviation("index_select.zero_dim_self_many_indices",
      "a zero-dim self with more than one index writes past the end of the result (heap corruption, "
      "often a crash in a later allocation)",
      "ops-fuzz sweep index_select.default --config contract --seed 3 --max 300",
      {kAborted, kSegfault});
  return Spec("index_select.default")
      .in(Tensor("self"))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Tensor("index").deps("self", "dim")
            .dtype(In(std::vector{c10::ScalarType::Long, c10::ScalarType::Int}))
            .rank(Le(1))
            // An empty dim has no index in range: no indices (implied by the rule on the values).
            .rank(Scope(Eq("1 when self.size(dim) is 0", [](const Ctx& c) -> std::optional<int64_t> {
              if (self_dim_size(c) == 0) return 1;
              return std::nullopt;
            })))
            .size(Scope(Eq("0 when self.size(dim) is 0", [](const Ctx& c) -> std::optional<int64_t> {
              if (self_dim_size(c) == 0) return 0;
              return std::nullopt;
            })))
            .size(Avoid(many_indices, Eq("1 when self is zero-dim", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.rank("self") == 0) return 1;
              return std::nullopt;
            })))
            // None when self.size(dim) is 0: the index is empty then (the scope on its size).
            .value(Be("[0, self.size(dim) - 1]", [](const Ctx& c) -> std::optional<std::vector<double>> {
              const int64_t n = self_dim_size(c);
              if (n == 0) return std::nullopt;
              return std::vector<double>{0, static_cast<double>(n - 1)};
            })));
}

// ---- shared by gather and the scatter family ------------------------------------------------

// Index tensor values: valid ones in [0, n) (or [-n, n) where the op wraps negative indices),
// invalid ones just outside (by one), so that an unchecked kernel is caught without reading far.
template <class F> Cond index_values(std::string n_text, F n_of, bool wraps) {
  std::string lo = wraps ? "-" + n_text : "0";
  return Gen("in [" + lo + ", " + n_text + ")", [n_of, wraps](const Ctx& c) -> std::optional<GenSets> {
    int64_t n = n_of(c), lo = wraps ? -n : 0;
    if (n == 0) return std::nullopt;  // the index is empty then (a scope on its size)
    GenSets g(on_ints([lo, n](int64_t v) { return v >= lo && v < n; }));
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
      .value(index_values("self.size(dim)", self_dim_size, false));
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
            }))
            // Complex numbers have no order: no complex amax or amin.
            .value(NotIn("{amax, amin} when self is complex", [](const Ctx& c) -> std::optional<std::vector<std::string>> {
              if (!c10::isComplexType(c.dtype("self"))) return std::nullopt;
              return std::vector<std::string>{"amax", "amin"};
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
Term slice_length() {
  Term n = size("self", value("dim"));
  auto clamp = [&](Term v) { return min(max(ite(v < 0, v + n, v), 0), n); };
  Term start = ite(is_none("start"), 0, clamp(value("start")));
  Term end = ite(is_none("end"), n, clamp(value("end")));
  return ite(end <= start, 0, (end - start + value("step") - 1) / value("step"));
}

// slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)
// src has the shape of the slice of self; it is copied, so its dtype is free. The slice's length
// is a joint constraint: per variable, a start past the end met a src that the configuration
// gives no empty dims, a dead end.
Spec slice_scatter() {
  return Spec("slice_scatter.default")
      .in(Tensor("self").rank(Ge(1)))
      .in(Tensor("src").deps("self", "dim", "start", "end", "step")
            .rank(Eq("self.rank", [](const Ctx& c) { return c.rank("self"); }))
            .size(Eq("self.size(d) for the dims but dim", [](const Ctx& c) -> std::optional<int64_t> {
              int64_t r = c.rank("self"), dim = c.as_int("dim");
              if (c.dim() == (dim < 0 ? dim + r : dim)) return std::nullopt;
              return c.size("self", c.dim());
            })))
      .in(Dim("dim").deps("self").value(dim_of("self")))
      .in(IntOpt("start"))
      .in(IntOpt("end"))
      .in(Int("step").value(Ge(1)))
      .joint("src.size(dim) is the length of the slice", size("src", value("dim")) == slice_length());
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


// ---- advanced indexing: index.Tensor and index_put --------------------------------------------

using S = c10::ScalarType;

int64_t ndim(const TensorMeta& t) { return static_cast<int64_t>(t.shape.size()); }
// A bool or uint8 entry of `indices` masks the dims of self it covers; a long one indexes one dim.
bool is_mask(const TensorMeta& t) { return !t.none && (t.dtype == S::Bool || t.dtype == S::Byte); }
bool is_index(const TensorMeta& t) { return !t.none && !is_mask(t); }
// The dims of self an entry takes: one for None or an index tensor, k for a k-dim mask.
int64_t dims_taken(const TensorMeta& t) { return is_mask(t) ? ndim(t) : 1; }

// The first dim of self that entry `entry` of `indices` takes.
int64_t first_dim(const MetaArg& indices, int64_t entry) {
  int64_t d = 0;
  for (int64_t e = 0; e < entry; ++e) d += dims_taken(indices.tensors[static_cast<size_t>(e)]);
  return d;
}

// Whether an entry of `indices` before `entry` is `what`.
bool earlier(const MetaArg& indices, int64_t entry, bool (*what)(const TensorMeta&)) {
  for (int64_t e = 0; e < entry; ++e)
    if (what(indices.tensors[static_cast<size_t>(e)])) return true;
  return false;
}
bool is_tensor_entry(const TensorMeta& t) { return !t.none; }

// The entries of `indices` solved so far, and the one being solved.
const MetaArg& entries(const Ctx& c) { return c.self(); }

// Tensor?[] indices into self: None skips a dim, an int64 tensor indexes one (values in
// [-n, n)), a bool or uint8 mask of k dims covers k dims of the same sizes; at least one entry
// is a tensor, and the index tensors broadcast together. A mask stands for its true positions,
// a count its values decide (no true value: the other index tensors are never read, nor
// checked): generation keeps a mask among None entries only, and gives it at least one dim (a
// zero-dim mask indexes nothing).
ArgSpec index_list(const std::string& op) {
  auto mask_values = deviation(deviation_id(op, "uint8_mask_values_unchecked"),
      "the kernel takes a uint8 mask's values other than 0 and 1 as true (masked_fill, which index_put uses for "
      "one mask, refuses them)",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 600");
  auto past_the_end = deviation(deviation_id(op, "none_past_the_end_unchecked"),
      "the kernel counts only len(indices) against self.rank: None entries left past the dims a mask took are "
      "taken (Python indexing refuses them: too many indices)",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 600");
  return TensorOptList("indices").deps("self")
      .length(Ge(1))
      .length(Le("self.rank", [](const Ctx& c) { return c.rank("self"); }))
      .optional(Named("an entry of indices is a tensor", Eq("not None", [](const Ctx& c) -> std::optional<bool> {
        const auto& l = entries(c);
        bool last = c.entry() == static_cast<int64_t>(l.tensors.size()) - 1;
        if (!last || !std::all_of(l.tensors.begin(), l.tensors.begin() + c.entry(), [](const TensorMeta& t) { return t.none; }))
          return std::nullopt;
        return false;
      })))
      .dtype(In(std::vector{S::Long, S::Bool, S::Byte}))
      .optional(Scope(Eq("None after a mask", [](const Ctx& c) -> std::optional<bool> {
        if (!earlier(entries(c), c.entry(), is_mask)) return std::nullopt;
        return true;
      })))
      .dtype(Scope(NotIn("{bool, uint8} after a tensor", [](const Ctx& c) -> std::optional<std::vector<S>> {
        if (!earlier(entries(c), c.entry(), is_tensor_entry)) return std::nullopt;
        return std::vector{S::Bool, S::Byte};
      })))
      .rank(Scope(Ge("1 for a mask (a zero-dim mask indexes nothing)", [](const Ctx& c) { return is_mask(c.tensor()) ? 1 : 0; })))
      .rank(Scope(Le("2 for an index tensor (the result repeats self's other dims for each index)",
                     [](const Ctx& c) -> std::optional<int64_t> {
        if (is_mask(c.tensor())) return std::nullopt;
        return 2;
      })))
      .rank(Le("the dims of self left to a mask", [](const Ctx& c) -> std::optional<int64_t> {
        if (!is_mask(c.tensor())) return std::nullopt;
        return c.rank("self") - first_dim(entries(c), c.entry());
      }))
      .rank(Unchecked(past_the_end, Le("the dims of self left to a mask, one kept for each later entry",
                                       [](const Ctx& c) -> std::optional<int64_t> {
        if (!is_mask(c.tensor())) return std::nullopt;
        int64_t later = static_cast<int64_t>(entries(c).tensors.size()) - c.entry() - 1;
        return c.rank("self") - first_dim(entries(c), c.entry()) - later;
      })))
      .size(Eq("self.size of the dim a mask covers", [](const Ctx& c) -> std::optional<int64_t> {
        if (!is_mask(c.tensor())) return std::nullopt;
        return c.size("self", first_dim(entries(c), c.entry()) + c.dim());
      }))
      .size(Gen("broadcastable with the earlier index tensors of indices", [](const Ctx& c) -> std::optional<GenSets> {
        if (!is_index(c.tensor())) return std::nullopt;
        std::optional<int64_t> fixed;  // the size they fix at this dim (aligned from the right), if not 1
        for (int64_t e = 0; e < c.entry(); ++e) {
          const TensorMeta& t = entries(c).tensors[static_cast<size_t>(e)];
          int64_t od = c.dim() - (c.rank() - ndim(t));
          if (is_index(t) && od >= 0 && t.shape[static_cast<size_t>(od)] != 1) fixed = t.shape[static_cast<size_t>(od)];
        }
        if (!fixed) return std::nullopt;
        return split(0, 9, [f = *fixed](int64_t v) { return v == f || v == 1; });
      }))
      .value(index_values("self.size of the dim it indexes", [](const Ctx& c) -> int64_t {
        if (!is_index(c.tensor())) return 0;  // masks: their own rule
        return c.size("self", first_dim(entries(c), c.entry()));
      }, true))
      .value(Unchecked(mask_values, Be("[0, 1] for a mask", [](const Ctx& c) -> std::optional<std::vector<double>> {
        if (!is_mask(c.tensor())) return std::nullopt;
        return std::vector<double>{0, 1};
      })));
}

// self for advanced indexing: a dim to index, no empty dim (an index into it is out of range).
ArgSpec advanced_self() { return Tensor("self").rank(Scope(Ge(1))).size(Scope(Ge(1))); }

// index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
Spec index_tensor() {
  auto nothing_indexed = deviation(deviation_id("index.Tensor", "empty_result_unchecked"),
      "index values out of range are taken when an empty index tensor makes the result empty: the kernel checks "
      "values only as it reads them",
      "ops-fuzz sweep index.Tensor --invalid --config contract,empty --seed 0 --max 300");
  return Spec("index.Tensor")
      .in(advanced_self())
      .in(index_list("index.Tensor"))
      .unchecked_on(nothing_indexed, "an entry of indices is empty", [](const Inputs& in) { return is_empty(in["indices"]); },
                    {"indices[i] values in [-self.size of the dim it indexes, self.size of the dim it indexes)"});
}

// The shape of self[indices]: the broadcast shape of the index tensors (a mask: its count of
// true values, unknown here: -1) in place of the dims they take when those are adjacent, in
// front of self's other dims otherwise.
IntList indexed_shape(const Ctx& c) {
  const IntList& self = c.shape("self");
  const MetaArg& indices = c.meta("indices");
  std::vector<bool> taken(self.size(), false);
  IntList b;
  int64_t d = 0;
  for (const TensorMeta& t : indices.tensors) {
    int64_t n = dims_taken(t);
    if (!t.none)
      for (int64_t k = d; k < d + n && k < static_cast<int64_t>(taken.size()); ++k) taken[static_cast<size_t>(k)] = true;
    d += n;
    if (t.none) continue;
    IntList shape = is_mask(t) ? IntList{-1} : t.shape;
    if (shape.size() > b.size()) b.insert(b.begin(), shape.size() - b.size(), 1);
    for (size_t k = 0; k < shape.size(); ++k) {
      int64_t& into = b[b.size() - shape.size() + k];
      if (into == 1) into = shape[k];
    }
  }
  auto first = std::find(taken.begin(), taken.end(), true) - taken.begin();
  auto last = taken.rend() - std::find(taken.rbegin(), taken.rend(), true);
  bool adjacent = std::all_of(taken.begin() + first, taken.begin() + last, [](bool x) { return x; });
  IntList out(self.begin(), self.begin() + (adjacent ? first : 0));
  out.insert(out.end(), b.begin(), b.end());
  for (auto k = adjacent ? last : 0; k < static_cast<int64_t>(self.size()); ++k)
    if (adjacent || !taken[static_cast<size_t>(k)]) out.push_back(self[static_cast<size_t>(k)]);
  return out;
}

// Whether index_put writes through masked_fill: one mask among None entries, accumulate off (the
// kernel then takes values of one element without checking their dtype or rank).
bool through_masked_fill(const Ctx& c) {
  const auto& ts = c.meta("indices").tensors;
  auto tensors = std::count_if(ts.begin(), ts.end(), [](const TensorMeta& t) { return !t.none; });
  return tensors == 1 && std::any_of(ts.begin(), ts.end(), is_mask) && c.as_int("accumulate") == 0;
}

// A rule of values that the masked_fill path leaves unchecked: `when_filled` says which.
Cond unless_filled(const Cond& rule, bool when_filled) {
  Cond c = rule;
  c.fn = [fn = rule.fn, when_filled](const Ctx& x) -> std::optional<Operand> {
    if (through_masked_fill(x) != when_filled) return std::nullopt;
    return fn(x);
  };
  return c;
}

// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor
// values have self's dtype and broadcast to the shape of self[indices]; where a mask's count of
// true values stands in that shape, values have size 1.
Spec index_put() {
  auto filled = deviation("index_put.masked_fill_unchecked",
      "with one mask among None entries and accumulate off, the kernel fills through masked_fill and takes a "
      "values tensor of one element whatever its dtype and rank",
      "ops-fuzz sweep index_put.default --invalid --config contract --seed 0 --max 600");
  auto trailing_none = deviation("index_put.masked_fill_trailing_none",
      "with one mask followed by None entries and accumulate off, the kernel fills through masked_fill with the "
      "mask aligned to self's last dims instead of the dims it covers: refused (or filled at the wrong place)",
      "ops-fuzz sweep index_put.default --config contract --seed 0 --max 600");
  Cond dtype = same_dtype_as_self();
  Cond rank = Le("the rank of self[indices]", [](const Ctx& c) { return static_cast<int64_t>(indexed_shape(c).size()); });
  return Spec("index_put.default")
      .in(advanced_self())
      .in(index_list("index_put.default"))
      .in(Tensor("values").deps("self", "indices", "accumulate")
            .dtype(unless_filled(dtype, false))
            .dtype(Unchecked(filled, unless_filled(dtype, true)))
            .rank(unless_filled(rank, false))
            .rank(Unchecked(filled, unless_filled(rank, true)))
            .size(Gen("broadcastable to self[indices] (size 1 where a mask's count stands)",
                      [](const Ctx& c) -> std::optional<GenSets> {
              IntList shape = indexed_shape(c);
              int64_t od = c.dim() - (c.rank() - static_cast<int64_t>(shape.size()));
              if (od < 0) return std::nullopt;
              int64_t r = shape[static_cast<size_t>(od)];
              if (r < 0) {  // the count is unknown: no size is surely wrong, 1 surely fits
                GenSets g(on_ints([](int64_t) { return true; }));
                g.valid = {int64_t{1}};
                return g;
              }
              return split(0, 9, [r](int64_t v) { return v == 1 || v == r; });
            })))
      .in(Bool("accumulate").deps("indices")
            .value(Avoid(trailing_none, Eq("true when a mask is followed by None entries", [](const Ctx& c) -> std::optional<bool> {
              const auto& ts = c.meta("indices").tensors;
              auto mask = std::find_if(ts.begin(), ts.end(), is_mask);
              if (mask == ts.end() || mask + 1 == ts.end()) return std::nullopt;
              return true;
            }))));
}

// ---- masked_scatter and the embedding backward ------------------------------------------------

// The number of elements of the shapes of `a` and `b` broadcast together.
int64_t broadcast_numel(const IntList& a, const IntList& b) {
  int64_t n = 1;
  for (size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
    int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1, y = k < b.size() ? b[b.size() - 1 - k] : 1;
    n *= x == 1 ? y : x;
  }
  return n;
}

// masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor
// mask and self broadcast together; source fills the true positions of mask in order, so it
// needs as many elements as mask has true values. That count is the mask's values: when source
// has fewer elements than the broadcast mask, valid masks are all false and invalid ones all true.
Spec masked_scatter() {
  auto mask_dtype = deviation("masked_scatter.mask_dtype_unchecked",
      "the CPU kernel does not check mask's dtype: it reads the first byte of each element of a mask of any "
      "other dtype as a uint8 mask",
      "ops-fuzz sweep masked_scatter.default --invalid --config contract --seed 0 --max 300");
  return Spec("masked_scatter.default")
      .in(Tensor("self"))
      .in(Tensor("mask").deps("self", "source")
            // uint8 masks are deprecated but still taken (with a warning).
            .dtype(Unchecked(mask_dtype, In(std::vector{S::Bool, S::Byte})))
            .size(broadcastable_with({"self"}))
            // A mask broadcast to no element is never read.
            .value(Be("[0, 1]", [](const Ctx& c) -> std::optional<std::vector<double>> {
              if (broadcast_numel(c.tensor().shape, c.shape("self")) == 0) return std::nullopt;
              return std::vector<double>{0, 1};
            }))
            .value(Named("source.numel >= the count of true values of mask (broadcast with self)",
                         Eq("0 when source is short", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.numel("source") >= broadcast_numel(c.tensor().shape, c.shape("self"))) return std::nullopt;
              return 0;
            }))))
      .in(Tensor("source").deps("self").dtype(same_dtype_as_self()));
}

// embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, int padding_idx,
//                          bool scale_grad_by_freq) -> Tensor
// grad_output holds one row of grad_output.size(-1) elements per index (the kernel views it so);
// indices pick rows of the num_weights-row gradient; an index equal to padding_idx is skipped.
Spec embedding_dense_backward() {
  auto unchecked = deviation("embedding_dense_backward.indices_unchecked",
      "the CPU kernel does not check that indices are in [0, num_weights): an index out of range adds into "
      "memory outside the gradient (heap corruption, often a crash later)",
      "ops-fuzz sweep embedding_dense_backward.default --invalid --config contract --seed 0 --max 300",
      {kAborted, kSegfault, kBusError});
  auto empty_grad = deviation("embedding_dense_backward.empty_grad_output_unchecked",
      "an empty grad_output is taken whatever numel(indices) is: the kernel views it as rows only when it has "
      "elements",
      "ops-fuzz sweep embedding_dense_backward.default --invalid --config contract,empty --seed 0 --max 300");
  const std::string rows_rule = "grad_output.size(d) for d < grad_output.rank - 1 multiply to numel(indices)";
  auto rows = [](int64_t d) { return ite(Term(d) < rank("grad_output") - 1, size("grad_output", d), 1); };
  return Spec("embedding_dense_backward.default")
      .in(Tensor("grad_output").rank(Ge(1)))
      .in(Tensor("indices").deps("num_weights")
            .dtype(In(std::vector{S::Long, S::Int}))
            .value(Unchecked(unchecked, index_values("num_weights", [](const Ctx& c) {
              return std::max<int64_t>(c.as_int("num_weights"), 0);
            }, false))))
      .in(Length("num_weights").value(Ge(0)))
      .in(Int("padding_idx"))
      .in(Bool("scale_grad_by_freq"))
      .joint(rows_rule, prod(dims("grad_output"), rows) == numel("indices"))
      // Without a row no index is in range: indices are empty then (implied by the values).
      .joint_scope("num_weights != 0 when indices has elements", numel("indices") == 0 || value("num_weights") != 0)
      .unchecked_on(empty_grad, "grad_output is empty", [](const Inputs& in) { return is_empty(in["grad_output"]); },
                    {rows_rule});
}


// The dtype of _embedding_bag's indices and offsets: int64 or int32. The kernel checks only the
// dtype they promote to, so the rule is two: not floating or complex (checked), not a smaller
// integral or bool dtype (the kernel's deviation).
Cond index_dtype(const std::string& arg) {
  return Named(arg + ".dtype in {int64, int32} (not a smaller integral or bool)", In(std::vector{S::Long, S::Int}));
}
Cond integral_index_dtype(const std::string& arg) {
  return Named(arg + ".dtype in {int64, int32} (not floating or complex)",
               NotIn(std::vector{S::Half, S::BFloat16, S::Float, S::Double, S::ComplexFloat, S::ComplexDouble}));
}

// _embedding_bag is the op behind embedding_bag, which hands it contiguous tensors.
constexpr const char* kContiguousInputs = "_embedding_bag takes every tensor but weight contiguous";

// _embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False,
//     int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False,
//     int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)
// Bag b sums (mode 0), averages (1) or takes the max (2) of the weight rows indices[offsets[b]:
// offsets[b + 1]]; with include_last_offset the last offset closes the last bag (CSR), without it
// the last bag runs to the end of indices. per_sample_weights scale the rows, in mode 0 only.
// An index equal to padding_idx is left out of its bag (a value no index takes pads nothing); the
// two flags matter only to the backward.
Spec embedding_bag() {
  auto mode = deviation("_embedding_bag.mode_unchecked",
      "the CPU kernel does not check mode: a mode other than 0, 1 or 2 crashes (SIGSEGV)",
      "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300",
      {kSegfault, kAborted});
  auto two_d = deviation("_embedding_bag.indices_rank_unchecked",
      "the CPU kernel takes 2-d indices (its check allows 1 or 2 dims) though bags are offsets into 1-d indices",
      "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300",
      {kSegfault, kAborted});
  auto promoted = deviation("_embedding_bag.index_dtype_promoted",
      "the CPU kernel checks the dtype indices and offsets promote to, not theirs: a smaller integral or bool "
      "one beside an int32 or int64 one is taken",
      "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300",
      {kAborted, kSegfault});
  auto weight_rank = deviation("_embedding_bag.weight_rank_unchecked",
      "the CPU kernel takes a weight of more than 2 dims (it reads weight.size(0) and weight.size(1) only), and "
      "crashes on some",
      "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300",
      {kSegfault});
  auto offsets = deviation("_embedding_bag.offsets_unchecked",
      "the CPU kernel checks neither that offsets is 1-d (other ranks are refused only by a later shape mismatch, "
      "and an empty one of 2 or more dims crashes) nor that there is a bag for indices (with no offsets, indices "
      "are put in a bag 0 that does not exist: out-of-bounds writes, a crash in the max mode)",
      "ops-fuzz sweep _embedding_bag.default --invalid --config contract,empty --seed 0 --max 600",
      {kSegfault});
  auto sparse_max = deviation("_embedding_bag.sparse_max_unchecked",
      "the CPU kernel takes sparse=True in the max mode, which embedding_bag refuses (\"max mode does not support "
      "sparse weights\"); its backward then sends each bag's gradient to every row of the bag, not only the max's",
      "ops-fuzz sweep _embedding_bag.default --invalid --config contract --seed 0 --max 300");
  auto no_rows = [](const Ctx& c) { return c.size("weight", 0) == 0; };
  return Spec("_embedding_bag.default")
      .in(Tensor("weight")
            .dtype(In(std::vector{S::Half, S::Float, S::Double}))
            .rank(Named("weight.rank == 2 (not below)", Ge(2)))
            .rank(Unchecked(weight_rank, Named("weight.rank == 2 (not above)", Le(2)))))
      .in(Tensor("indices").deps("weight")
            .contiguous_scope(kContiguousInputs)
            .dtype(integral_index_dtype("indices"))
            .dtype(Unchecked(promoted, index_dtype("indices")))
            .rank(Named("indices.rank == 1 (not 0, nor above 2)", Be(1, 2)))
            .rank(Unchecked(two_d, Named("indices.rank == 1 (not 2)", Eq(1))))
            // A weight without rows has no index in range: no indices (implied by the values).
            .size(Scope(Eq("0 when weight.size(0) is 0", [=](const Ctx& c) -> std::optional<int64_t> {
              if (no_rows(c) && c.dim() == 0) return 0;
              return std::nullopt;
            })))
            .value(index_values("weight.size(0)", [](const Ctx& c) { return c.size("weight", 0); }, false)))
      .in(Tensor("offsets").deps("indices", "include_last_offset")
            .dtype(integral_index_dtype("offsets"))
            .dtype(Unchecked(promoted, index_dtype("offsets")))
            .contiguous_scope(kContiguousInputs)
            .rank(Unchecked(offsets, Eq(1)))
            .size(Unchecked(offsets, Ge("1 when indices has elements", [](const Ctx& c) { return c.numel("indices") > 0 ? 1 : 0; })))
            .size(Ge("1 when include_last_offset", [](const Ctx& c) { return c.as_int("include_last_offset") ? 1 : 0; }))
            // One offset cannot both open and close bags (0 and len(indices)).
            .size(Scope(Ge("2 when include_last_offset", [](const Ctx& c) { return c.as_int("include_last_offset") ? 2 : 0; })))
            .value(Gen("in [0, len(indices)]", [](const Ctx& c) {
              int64_t n = c.numel("indices");
              GenSets g(on_ints([n](int64_t v) { return v >= 0 && v <= n; }));
              for (int64_t v = 0; v <= n; ++v) g.valid.push_back(v);
              g.invalid = {int64_t{-1}, n + 1};
              return g;
            }))
            .ascending_scope("offsets[0] == 0 and offsets never decrease, up to len(indices)"))
      .in(Bool("scale_grad_by_freq"))
      .in(Int("mode").value(Unchecked(mode, In(std::vector<int64_t>{0, 1, 2}))))
      .in(Bool("sparse").deps("mode")
            .value(Unchecked(sparse_max, Eq("False in the max mode (2)", [](const Ctx& c) -> std::optional<bool> {
              if (c.as_int("mode") == 2) return false;
              return std::nullopt;
            }))))
      .in(TensorOpt("per_sample_weights").deps("weight", "indices", "mode")
            .contiguous_scope(kContiguousInputs)
            .optional(Eq("None unless mode is 0", [](const Ctx& c) -> std::optional<bool> {
              if (c.as_int("mode") == 0) return std::nullopt;
              return true;
            }))
            .dtype(Eq("weight.dtype", [](const Ctx& c) { return c.dtype("weight"); }))
            .rank(Eq(1))
            .size(Eq("indices.numel", [](const Ctx& c) { return c.numel("indices"); })))
      .in(Bool("include_last_offset"))
      .in(Int("padding_idx"));
}

}  // namespace

std::span<const SpecFn> indexing_specs() {
  static constexpr SpecFn table[] = {index_select, gather, scatter_src_op, scatter_value, scatter_add, scatter_reduce,
                                     nonzero, masked_select, select_scatter, slice_scatter, embedding,
                                     index_tensor, index_put, masked_scatter, embedding_bag, embedding_dense_backward};
  return table;
}

}  // namespace opsfuzz::db
