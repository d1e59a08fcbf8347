#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {

// cat: all sizes of the entries agree with entry 0 except along one dim, the first where an
// entry differs. The dims along which the entries already differ from entry 0:
std::vector<int64_t> differing_dims(const MetaArg& list, int64_t upto_entry, const IntList* partial) {
  std::vector<int64_t> dims;
  const auto& first = list.tensors.at(0).shape;
  auto scan = [&](const IntList& shape) {
    for (size_t d = 0; d < shape.size() && d < first.size(); ++d)
      if (shape[d] != first[d] && std::find(dims.begin(), dims.end(), int64_t(d)) == dims.end()) dims.push_back(int64_t(d));
  };
  for (int64_t e = 1; e < upto_entry; ++e) scan(list.tensors[static_cast<size_t>(e)].shape);
  if (partial) scan(*partial);
  return dims;
}

int64_t rank_of_first(const Ctx& c) { return static_cast<int64_t>(c.meta("tensors").tensors.at(0).shape.size()); }

// cat(Tensor[] tensors, int dim=0) -> Tensor
Spec cat() {
  return Spec("cat.default")
      .in(TensorList("tensors")
            .length(Ge(1))
            .rank(Ge(1))
            // cat skips 1-d empty entries without checking them (a legacy rule).
            .size(Scope(Named("no tensors[i] is [0]", Ge("1 for a 1-d entry", [](const Ctx& c) { return c.rank() == 1 ? 1 : 0; }))))
            .rank(Eq("tensors[0].rank", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.entry() <= 0) return std::nullopt;
              return static_cast<int64_t>(c.self().tensors.at(0).shape.size());
            }))
            .size(Eq("tensors[0].size(d) except along the dim the entries differ along", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.entry() <= 0) return std::nullopt;
              auto dims = differing_dims(c.self(), c.entry(), &c.solved());
              if (dims.empty() || dims[0] == c.dim()) return std::nullopt;
              return c.self().tensors.at(0).shape.at(static_cast<size_t>(c.dim()));
            })))
      .in(Dim("dim").deps("tensors")
            .value(Be("[-tensors[0].rank, tensors[0].rank)", [](const Ctx& c) {
              return std::vector<double>{static_cast<double>(-rank_of_first(c)), static_cast<double>(rank_of_first(c) - 1)};
            }))
            .value(Named("dim is the dim along which the entries of tensors differ", In("that dim", [](const Ctx& c) -> std::optional<IntList> {
              auto dims = differing_dims(c.meta("tensors"), c.length("tensors"), nullptr);
              if (dims.empty()) return std::nullopt;
              return IntList{dims[0], dims[0] - rank_of_first(c)};
            }))));
}

// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
Spec constant_pad_nd() {
  return Spec("constant_pad_nd.default")
      .in(Tensor("self"))
      .in(LengthList("pad").deps("self")
            .length(In("{0, 2, ..., 2 * self.rank}", [](const Ctx& c) {
              IntList ok;
              for (int64_t n = 0; n <= 2 * c.rank("self"); n += 2) ok.push_back(n);
              return ok;
            }))
            .value(Gen("keeps the padded size of its dim positive", [](const Ctx& c) {
              // The kernel narrows by the first pad of a pair, then by the second; the padded
              // size must be positive. Between "valid" and "invalid" lie sizes of 0, which the
              // kernel takes only when no pad is positive: they are left out of both.
              int64_t i = c.position();
              int64_t size = c.size("self", c.rank("self") - 1 - i / 2);
              int64_t lo = -size, broken = -size;  // narrowing may start at the end
              if (i % 2) {
                int64_t first = c.solved()[static_cast<size_t>(i - 1)];
                lo = std::max(1 - size - first, -size - std::min<int64_t>(first, 0));
                broken = -size - std::min<int64_t>(first, 0);  // narrows to a negative length
              }
              GenSets g;
              for (int64_t v = -9; v <= 9; ++v) {
                if (v >= lo) g.valid.push_back(v);
                else if (v < broken) g.invalid.push_back(v);
              }
              return g;
            })))
      .in(Scalar("value").deps("self", "pad")  // written only where a pad is positive
            .value(fits_dtype("self.dtype (when a pad is positive)", [](const Ctx& c) -> std::optional<c10::ScalarType> {
              const auto& pad = c.ints("pad");
              if (std::none_of(pad.begin(), pad.end(), [](int64_t p) { return p > 0; })) return std::nullopt;
              return c.dtype("self");
            })));
}

// pixel_shuffle(Tensor self, int upscale_factor) -> Tensor
// An upscale factor that is a multiple of 2^32 divides by zero in this build, and one whose
// square wraps returns negative sizes: the limits keep it small.
Spec pixel_shuffle() {
  auto layouts = deviation("pixel_shuffle.channels_last_3d",
      "the kernel refuses 5-d inputs in the channels-last-3d memory format (\"Unsupported memory format\")",
      "ops-fuzz sweep pixel_shuffle.default --config contract,channels_last --seed 0 --max 300");
  return Spec("pixel_shuffle.default")
      .in(Tensor("self")
            .contiguous(layouts)
            .rank(Ge(3)))
      .in(Int("upscale_factor").deps("self"))
      .joint("upscale_factor >= 1", value("upscale_factor") >= 1)
      .joint("self.size(-3) % upscale_factor^2 == 0",
             size("self", -3) % (value("upscale_factor") * value("upscale_factor")) == 0);
}

// unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor
// (the view unfold returns negative sizes for a negative size when another dim is empty)
Spec unfold_copy() {
  return Spec("unfold_copy.default")
      .in(Tensor("self"))
      .in(Dim("dimension").deps("self")
            .value(dim_of("self")))
      .in(Int("size").deps("self", "dimension"))
      .in(Int("step")
            .value(Gt(0)))
      .joint("size >= 0", value("size") >= 0)
      .joint("size <= self.size(dimension)",
             value("size") <= ite(rank("self") == 0, 1, size("self", value("dimension"))));
}

// A dim list of self: dims of self, each at most once.
ArgSpec dims_of_self(std::string name) {
  return DimList(std::move(name)).deps("self")
      .length(Le("self.rank", [](const Ctx& c) { return dim_rank(c, "self"); }))
      .value(dim_of("self"))
      .value(unique_dim_of("self"));
}

// self of a unique op, whose CPU kernels have no float16 path though they have a bfloat16 one.
ArgSpec unique_self(const std::string& op) {
  auto missing = deviation(op.substr(0, op.find('.')) + ".float16_self",
      "the CPU kernel is not implemented for float16 self (\"\"unique\" not implemented for 'Half'\" or "
      "\"\"unique_dim\" ...\"), though it is for bfloat16",
      "ops-fuzz sweep " + op + " --config contract,half --seed 0 --max 200");
  return Tensor("self").dtype(Avoid(missing, NotIn(std::vector{c10::ScalarType::Half})));
}

// _unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False)
Spec unique2() {
  return Spec("_unique2.default")
      .in(unique_self("_unique2.default"))
      .in(Bool("sorted"))
      .in(Bool("return_inverse"))
      .in(Bool("return_counts"));
}

// Unique slices along dim: every other dim of self must have elements (the kernel refuses
// zero-sized dims it does not select), and a zero-dim self has no slices.
Term other_dims_have_elements() {
  return rank("self") >= 1 && all(dims("self"), [](int64_t d) {
           return size("self", d) >= 1 || value("dim") == d || value("dim") == d - rank("self");
         });
}
const char* kOtherDims = "self.rank >= 1 and self.size(d) >= 1 for every d other than dim";

// unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False)
Spec unique_dim() {
  return Spec("unique_dim.default")
      .in(unique_self("unique_dim.default"))
      .in(Dim("dim").deps("self")
            .value(dim_of("self")))
      .in(Bool("sorted"))
      .in(Bool("return_inverse"))
      .in(Bool("return_counts"))
      .joint(kOtherDims, other_dims_have_elements());
}

// unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None)
Spec unique_consecutive() {
  return Spec("unique_consecutive.default")
      .in(unique_self("unique_consecutive.default"))
      .in(Bool("return_inverse"))
      .in(Bool("return_counts"))
      .in(DimOpt("dim").deps("self")
            .value(dim_of("self")))
      .joint(std::string(kOtherDims) + " (when dim is given)", implies(!is_none("dim"), other_dims_have_elements()));
}

// flip(Tensor self, int[] dims) -> Tensor
Spec flip() {
  return Spec("flip.default")
      .in(Tensor("self"))
      .in(dims_of_self("dims"));
}

// repeat(Tensor self, SymInt[] repeats) -> Tensor
Spec repeat() {
  auto empty_self = deviation("repeat.negative_repeat_empty_self",
      "a negative repeat is accepted without an error when self is empty",
      "ops-fuzz sweep repeat.default --invalid --config contract,empty --seed 0 --max 1000");
  auto non_negative = all_entries("repeats", [](Term r) { return r >= 0; });
  auto empty = numel("self") == 0;
  return Spec("repeat.default")
      .in(Tensor("self"))
      .in(LengthList("repeats").deps("self")
            .length(Ge("self.rank", [](const Ctx& c) { return c.rank("self"); }))
            // Products of repeats grow fast: a generation limit, not a rule.
            .value(Scope(Named("repeats keep the result under 4096 elements", Le("4096 / (self.numel() * prod(repeats before))", [](const Ctx& c) {
              int64_t n = std::max<int64_t>(1, c.numel("self"));
              for (int64_t r : c.solved()) n *= std::max<int64_t>(1, r);
              return std::max<int64_t>(1, 4096 / n);
            })))))
      .joint("repeats[i] >= 0 (self has elements)", implies(!empty, non_negative))
      .joint_unchecked(empty_self, "repeats[i] >= 0 (self is empty)", implies(empty, non_negative));
}

// resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
Spec resize_() {
  using M = c10::MemoryFormat;
  auto beside_zero = deviation("resize_.negative_size_beside_zero",
      "a negative size is accepted when another size is 0 (the kernel checks the number of elements, which is 0), "
      "giving a tensor with a negative size",
      "ops-fuzz sweep resize_.default --invalid --config contract --seed 0 --max 300");
  auto non_negative = all_entries("size", [](Term s) { return s >= 0; });
  auto has_zero = any(elems("size"), [](int64_t i) { return elem("size", i) == 0; });
  return Spec("resize_.default")
      .in(Tensor("self"))
      .in(Shape("size"))
      .kw(MemoryFormatOpt("memory_format").deps("size")
            .value(In("contiguous, channels_last when len(size) == 4, channels_last_3d when 5", [](const Ctx& c) {
              std::vector<M> ok{M::Contiguous};
              if (c.length("size") == 4) ok.push_back(M::ChannelsLast);
              if (c.length("size") == 5) ok.push_back(M::ChannelsLast3d);
              return ok;
            })))
      .joint("size[i] >= 0 (no size is 0)", implies(!has_zero, non_negative))
      .joint_unchecked(beside_zero, "size[i] >= 0 (a size is 0)", implies(has_zero, non_negative));
}

// stack(Tensor[] tensors, int dim=0) -> Tensor
Spec stack() {
  return Spec("stack.default")
      .in(TensorList("tensors")
            .length(Ge(1))
            .rank(Eq("tensors[0].rank", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.entry() <= 0) return std::nullopt;
              return static_cast<int64_t>(c.self().tensors.at(0).shape.size());
            }))
            .size(Eq("tensors[0].size(d)", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.entry() <= 0) return std::nullopt;
              return c.self().tensors.at(0).shape.at(static_cast<size_t>(c.dim()));
            })))
      .in(Dim("dim").deps("tensors")
            .value(Be("[-tensors[0].rank - 1, tensors[0].rank]", [](const Ctx& c) {
              return std::vector<double>{static_cast<double>(-rank_of_first(c) - 1), static_cast<double>(rank_of_first(c))};
            })));
}

}  // namespace

std::span<const SpecFn> shape_specs() {
  static constexpr SpecFn table[] = {cat, constant_pad_nd, pixel_shuffle, unfold_copy,
                                     unique2, unique_dim, unique_consecutive, flip, repeat,
                                     resize_, stack};
  return table;
}

}  // namespace opsfuzz::db
