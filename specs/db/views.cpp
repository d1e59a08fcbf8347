// Views and their _copy twins (one body per pair, built from the op's name), copies, and the
// sym_* queries of a tensor's geometry.
#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;
using M = c10::MemoryFormat;

namespace {

// op(Tensor self) -> Tensor: any tensor.
Spec of_self(std::string op) { return Spec(std::move(op)).in(Tensor("self")); }

// A dim of self that exists: [-self.rank, self.rank) with self.rank >= 1.
Spec with_dim(std::string op) {
  return Spec(std::move(op))
      .in(Tensor("self")
            .rank(Ge(1)))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")));
}

// The wrapped dim `arg` of self, both ways: {d, d - r} for rank r (rank 0 counts as 1).
Cond not_the_dim(std::string arg) {
  return Named("dim2 != dim1 (both wrapped)", NotIn(arg, [arg](const Ctx& c) {
    int64_t r = dim_rank(c, "self"), d = c.as_int(arg);
    int64_t w = d < 0 ? d + r : d;
    return IntList{w, w - r};
  }));
}

// alias(Tensor(a) self) -> Tensor(a)
Spec alias() { return of_self("alias.default"); }
// alias_copy(Tensor self) -> Tensor
Spec alias_copy() { return of_self("alias_copy.default"); }
// detach_copy(Tensor self) -> Tensor
Spec detach_copy() { return of_self("detach_copy.default"); }
// lift_fresh_copy(Tensor self) -> Tensor
Spec lift_fresh_copy() { return of_self("lift_fresh_copy.default"); }

// as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)
// The result must lie inside self's storage (self.numel() elements: generated tensors own their
// storage from offset 0, and a strided layout's is larger). None offset is self's own, 0.
// The view checks a negative size only through the storage it needs; the copy refuses it.
Spec as_strided_like(const std::string& op, bool view) {
  Cond no_negative_size = Ge(0);
  if (view)
    no_negative_size = Unchecked(deviation("as_strided.negative_size",
        "a negative size is not refused when another size is 0 or its stride is 0: the view gets a negative size",
        "ops-fuzz sweep as_strided.default --invalid --config contract --seed 0 --max 1000"), no_negative_size);
  Term offset = ite(is_none("storage_offset"), 0, value("storage_offset"));
  Term reach = sum(elems("size"), [](int64_t i) {  // the offset of the last element
    return ite(Term(i) < length("stride"), elem("stride", i), 0) * (elem("size", i) - 1);
  });
  Term empty = any(elems("size"), [](int64_t i) { return elem("size", i) == 0; });
  return Spec(op)
      .in(Tensor("self"))
      .in(Shape("size")
            .value(std::move(no_negative_size)))
      .in(LengthList("stride").deps("size")
            .length(Eq("len(size)", [](const Ctx& c) { return c.length("size"); }))
            .value(Ge(0)))
      .in(LengthOpt("storage_offset")
            .value(Ge(0)))
      .joint("size has a 0, or storage_offset + sum(stride[i] * (size[i] - 1)) < self.numel()",
             empty || offset + reach < numel("self"));
}
Spec as_strided() { return as_strided_like("as_strided.default", true); }
Spec as_strided_copy() { return as_strided_like("as_strided_copy.default", false); }

// clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor
Spec clone() {
  return Spec("clone.default")
      .in(Tensor("self"))
      .kw(MemoryFormatOpt("memory_format").deps("self")
            .value(In("{contiguous, preserve}, channels_last when self.rank == 4, channels_last_3d when 5",
                      [](const Ctx& c) {
                        std::vector<M> ok{M::Contiguous, M::Preserve};
                        if (c.rank("self") == 4) ok.push_back(M::ChannelsLast);
                        if (c.rank("self") == 5) ok.push_back(M::ChannelsLast3d);
                        return ok;
                      })));
}

// copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor
// src is expanded to self's shape and cast to self's dtype.
Spec copy() {
  return Spec("copy.default")
      .in(Tensor("self"))
      .in(Tensor("src").deps("self")
            .rank(Le("self.rank", [](const Ctx& c) { return c.rank("self"); }))
            .size(Gen("expandable to self (1 or self's size at that dim, aligned from the right)", [](const Ctx& c) {
              int64_t s = c.size("self", c.dim() + c.rank("self") - c.rank());
              return split(0, 9, [s](int64_t v) { return v == s || v == 1; });
            }))
            // A float cast to an integral dtype out of its range is undefined, not refused.
            .value(Scope(casts_into("self.dtype", [](const Ctx& c) -> std::optional<c10::ScalarType> {
              return c.dtype("self");
            }))))
      .in(Bool("non_blocking"));
}

// diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)
Spec diagonal_like(std::string op) {
  return Spec(std::move(op))
      .in(Tensor("self")
            .rank(Ge(2)))
      .in(Int("offset"))
      .in(Dim("dim1").deps("self")
            .value(dim_of("self")))
      .in(Dim("dim2").deps("self", "dim1")
            .value(dim_of("self"))
            .value(not_the_dim("dim1")));
}
Spec diagonal() { return diagonal_like("diagonal.default"); }
Spec diagonal_copy() { return diagonal_like("diagonal_copy.default"); }

// expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)
// size ends with self's dims: -1 keeps a size, a dim of size 1 expands to any size; leading
// new dims take any size >= 0. The view checks a negative size only through the storage it
// needs; the copy refuses it.
Spec expand_like(const std::string& op, bool view) {
  Cond above_minus_one = Ge("0 in a new leading dim, -1 in self's dims", [](const Ctx& c) {
    return c.rank("self") - c.length() + c.position() < 0 ? 0 : -1;
  });
  if (view)
    above_minus_one = Unchecked(deviation("expand.negative_size",
        "a negative size (below -1, or -1 in a new leading dim) is not refused where self's size is 1 or when "
        "another size is 0: the view gets a negative size",
        "ops-fuzz sweep expand.default --invalid --config contract --seed 0 --max 1000"), above_minus_one);
  return Spec(op)
      .in(Tensor("self"))
      .in(Shape("size").deps("self")
            .length(Ge("self.rank", [](const Ctx& c) { return c.rank("self"); }))
            .value(std::move(above_minus_one))
            .value(Gen("is -1 or self's size at that dim, any size >= 0 where that is 1 or a new leading dim",
                       [](const Ctx& c) {
                         int64_t d = c.rank("self") - c.length() + c.position();
                         int64_t s = d < 0 ? 1 : c.size("self", d);
                         // sizes below the first rule's bound are left to it
                         return split(-9, 8, [d, s](int64_t v) {
                           return v < (d < 0 ? 0 : -1) || (v == -1 && d >= 0) || v == s || (s == 1 && v >= 0);
                         });
                       })))
      .kw(Bool("implicit"));
}
Spec expand() { return expand_like("expand.default", true); }
Spec expand_copy() { return expand_like("expand_copy.default", false); }

// permute(Tensor(a) self, int[] dims) -> Tensor(a)
Spec permute_like(std::string op) {
  return Spec(std::move(op))
      .in(Tensor("self"))
      .in(DimList("dims").deps("self")
            .length(Eq("self.rank", [](const Ctx& c) { return c.rank("self"); }))
            .value(dim_of("self"))
            .value(unique_dim_of("self")));
}
Spec permute() { return permute_like("permute.default"); }
Spec permute_copy() { return permute_like("permute_copy.default"); }

// select.int(Tensor(a) self, int dim, int index) -> Tensor(a)
Spec select_like(std::string op) {
  Term n = size("self", value("dim"));
  return with_dim(std::move(op))
      .in(Index("index").deps("self", "dim"))
      .joint("index in [-self.size(dim), self.size(dim))", value("index") >= -n && value("index") < n);
}
Spec select() { return select_like("select.int"); }
Spec select_copy() { return select_like("select_copy.int"); }

// slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
// start and end are clamped to self.size(dim): any value is valid.
Spec slice_like(std::string op) {
  return with_dim(std::move(op))
      .in(IndexOpt("start"))
      .in(IndexOpt("end"))
      .in(Length("step")
            .value(Ge(1)));
}
Spec slice() { return slice_like("slice.Tensor"); }
Spec slice_copy() { return slice_like("slice_copy.Tensor"); }

// squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)
Spec squeeze_like(std::string op) {
  return Spec(std::move(op))
      .in(Tensor("self"))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")));
}
Spec squeeze() { return squeeze_like("squeeze.dim"); }
Spec squeeze_copy() { return squeeze_like("squeeze_copy.dim"); }

// t_copy(Tensor self) -> Tensor
Spec t_copy() {
  return Spec("t_copy.default")
      .in(Tensor("self")
            .rank(Le(2)));
}

// transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor
Spec transpose_copy() {
  return Spec("transpose_copy.int")
      .in(Tensor("self"))
      .in(Dim("dim0").deps("self")
            .value(dim_of("self")))
      .in(Dim("dim1").deps("self")
            .value(dim_of("self")));
}

// unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
Spec unsqueeze_like(std::string op) {
  return Spec(std::move(op))
      .in(Tensor("self"))
      .in(Dim("dim").deps("self")
            .value(Be("[-self.rank - 1, self.rank]", [](const Ctx& c) {
              return std::vector<double>{static_cast<double>(-c.rank("self") - 1), static_cast<double>(c.rank("self"))};
            })));
}
Spec unsqueeze() { return unsqueeze_like("unsqueeze.default"); }
Spec unsqueeze_copy() { return unsqueeze_like("unsqueeze_copy.default"); }

// view(Tensor(a) self, SymInt[] size) -> Tensor(a)
// view_copy(Tensor self, SymInt[] size) -> Tensor
Spec view_like(std::string op, bool strides_rule) {
  auto entry = [](int64_t i) { return elem("size", i); };
  Term inferred = any(elems("size"), [=](int64_t i) { return entry(i) == -1; });
  Term known = prod(elems("size"), [=](int64_t i) { return ite(entry(i) == -1, 1, entry(i)); });
  ArgSpec self = Tensor("self");
  // view also needs size to be compatible with self's strides, which no constraint states.
  if (strides_rule) self.contiguous_scope("view's rule over self's strides is not stated");
  return Spec(std::move(op))
      .in(std::move(self))
      .in(Shape("size").deps("self"))
      .joint("size[i] >= -1", all_entries("size", [](Term s) { return s >= -1; }))
      .joint("at most one size[i] is -1", sum(elems("size"), [=](int64_t i) { return entry(i) == -1; }) <= 1)
      .joint("prod(size) == self.numel(), or divides it when one size is -1",
             ite(inferred, known >= 1 && numel("self") % known == 0, known == numel("self")));
}
Spec view() { return view_like("view.default", true); }
Spec view_copy() { return view_like("view_copy.default", false); }

// unbind_copy.int(Tensor self, int dim=0) -> Tensor[]
Spec unbind_copy() { return with_dim("unbind_copy.int"); }

// split_copy.Tensor(Tensor self, int split_size, int dim=0) -> Tensor[]
Spec split_copy() {
  return Spec("split_copy.Tensor")
      .in(Tensor("self")
            .rank(Ge(1)))
      .in(Length("split_size").deps("self", "dim"))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .joint("split_size >= 0", value("split_size") >= 0)
      .joint("split_size is 0 only when self.size(dim) is 0",
             implies(value("split_size") == 0, size("self", value("dim")) == 0));
}

// split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]
// split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]
Spec split_with_sizes_like(std::string op) {
  return Spec(std::move(op))
      .in(Tensor("self")
            .rank(Ge(1)))
      .in(LengthList("split_sizes").deps("self", "dim"))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .joint("split_sizes[i] >= 0", all_entries("split_sizes", [](Term s) { return s >= 0; }))
      .joint("sum(split_sizes) == self.size(dim)", sum(elems("split_sizes")) == size("self", value("dim")));
}
Spec split_with_sizes() { return split_with_sizes_like("split_with_sizes.default"); }
Spec split_with_sizes_copy() { return split_with_sizes_like("split_with_sizes_copy.default"); }

// sym_numel(Tensor self) -> SymInt
Spec sym_numel() { return of_self("sym_numel.default"); }
// sym_storage_offset(Tensor self) -> SymInt
Spec sym_storage_offset() { return of_self("sym_storage_offset.default"); }
// op(Tensor self, int dim) -> SymInt: self's size or stride (`what`) at dim, as Tensor.size(dim).
// The linked operator (a TorchScript primitive) indexes self's sizes or strides with dim as it
// is: it neither wraps a negative dim nor checks the range, and reads outside the array.
Spec geometry_at(const std::string& op, const std::string& what) {
  auto unchecked = deviation(deviation_id(op, "dim_unchecked"),
      "dim is neither wrapped nor checked against self.rank: a negative or out-of-range dim reads outside "
      "self's " + what + " (a wrong value, or a segmentation fault), and a 0-dim self is not refused",
      "ops-fuzz sweep " + op + " --invalid --config contract --seed 0 --max 1000",
      {kSegfault});
  return Spec(op)
      .in(Tensor("self")
            .rank(Unchecked(unchecked, Ge(1))))
      .in(Dim("dim").deps("self")
            .value(Unchecked(unchecked, dim_of("self")))
            .value(Avoid(unchecked, Ge(0))));
}
// sym_size.int(Tensor self, int dim) -> SymInt
Spec sym_size() { return geometry_at("sym_size.int", "sizes"); }
// sym_stride.int(Tensor self, int dim) -> SymInt
Spec sym_stride() { return geometry_at("sym_stride.int", "strides"); }

}  // namespace

std::span<const SpecFn> view_specs() {
  static constexpr SpecFn table[] = {
      alias, alias_copy, as_strided, as_strided_copy, clone, copy, detach_copy, lift_fresh_copy,
      diagonal, diagonal_copy, expand, expand_copy, permute, permute_copy, select, select_copy,
      slice, slice_copy, squeeze, squeeze_copy, t_copy, transpose_copy, unsqueeze, unsqueeze_copy,
      view, view_copy, unbind_copy, split_copy, split_with_sizes, split_with_sizes_copy,
      sym_numel, sym_size, sym_storage_offset, sym_stride};
  return table;
}

}  // namespace opsfuzz::db
