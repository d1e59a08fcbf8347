#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

Term self_is_empty() { return any(dims("self"), [](int64_t d) { return size("self", d) == 0; }); }
Spec& checked_unless_empty(Spec& s, const DeviationRef& d, const std::string& label, Term rule, const Emptiness& e) {
  return s.joint(label + " (" + e.has + ")", implies(!e.empty, rule))
      .joint_unchecked(d, label + " (" + e.is + ")", implies(e.empty, rule));
}

ArgSpec& checked_where(ArgSpec& a, Attribute attr, const Cond& rule, const std::function<bool(const Ctx&)>& checked,
                       const DeviationRef& d, const std::string& has, const std::string& is) {
  auto part = [&](bool where, const std::string& text) {
    Cond c = rule;
    c.text += " (" + text + ")", c.constant = false;
    c.fn = [fn = rule.fn, checked, where](const Ctx& x) -> std::optional<Operand> {
      if (checked(x) != where) return std::nullopt;
      return fn(x);
    };
    return c;
  };
  return a.add(attr, part(true, has)).add(attr, Unchecked(d, part(false, is)));
}

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

// self of a unique op, whose CPU kernels have no float16 path though they have a bfloat16 one, and
// sort real numbers only ("unique" not implemented for 'ComplexFloat').
ArgSpec unique_self(const std::string& op) {
  auto missing = deviation(deviation_id(op, "float16_self"),
      "the CPU kernel is not implemented for float16 self (\"\"unique\" not implemented for 'Half'\" or "
      "\"\"unique_dim\" ...\"), though it is for bfloat16",
      "ops-fuzz sweep " + op + " --config contract,half --seed 0 --max 200");
  return Tensor("self").dtype(not_complex()).dtype(Avoid(missing, NotIn(std::vector{c10::ScalarType::Half})));
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

// No two entries of int list `list` are equal.
Term distinct_entries(const std::string& list) {
  return all(elems(list), [list](int64_t i) {
    return all(elems(list), [list, i](int64_t j) { return j >= i || elem(list, i) != elem(list, j); });
  });
}
DeviationRef unchecked_when_empty(const std::string& op, const std::string& what, const std::string& reason) {
  return deviation(deviation_id(op, what + "_unchecked_when_empty"), reason,
                   "ops-fuzz sweep " + op + " --invalid --config contract,empty --seed 0 --max 300");
}

// repeat(Tensor self, SymInt[] repeats) -> Tensor
Spec repeat() {
  auto empty_self = deviation("repeat.negative_repeat_empty_self",
      "a negative repeat is accepted without an error when self is empty",
      "ops-fuzz sweep repeat.default --invalid --config contract,empty --seed 0 --max 1000");
  Spec s("repeat.default");
  s.in(Tensor("self"))
      .in(LengthList("repeats").deps("self")
            .length(Ge("self.rank", [](const Ctx& c) { return c.rank("self"); }))
            // Products of repeats grow fast: a generation limit, not a rule.
            .value(Scope(Named("repeats keep the result under 4096 elements", Le("4096 / (self.numel() * prod(repeats before))", [](const Ctx& c) {
              int64_t n = std::max<int64_t>(1, c.numel("self"));
              for (int64_t r : c.solved()) n *= std::max<int64_t>(1, r);
              return std::max<int64_t>(1, 4096 / n);
            })))));
  return checked_unless_empty(s, empty_self, "repeats[i] >= 0", all_entries("repeats", [](Term r) { return r >= 0; }));
}

// resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
Spec resize_() {
  using M = c10::MemoryFormat;
  auto beside_zero = deviation("resize_.negative_size_beside_zero",
      "a negative size is accepted when another size is 0 (the kernel checks the number of elements, which is 0), "
      "giving a tensor with a negative size",
      "ops-fuzz sweep resize_.default --invalid --config contract --seed 0 --max 300");
  Spec s("resize_.default");
  s.in(Tensor("self"))
      .in(Shape("size"))
      .kw(MemoryFormatOpt("memory_format").deps("size")
            .value(In("contiguous, channels_last when len(size) == 4, channels_last_3d when 5", [](const Ctx& c) {
              std::vector<M> ok{M::Contiguous};
              if (c.length("size") == 4) ok.push_back(M::ChannelsLast);
              if (c.length("size") == 5) ok.push_back(M::ChannelsLast3d);
              return ok;
            })));
  Emptiness has_zero{any(elems("size"), [](int64_t i) { return elem("size", i) == 0; }), "no size is 0", "a size is 0"};
  return checked_unless_empty(s, beside_zero, "size[i] >= 0", all_entries("size", [](Term n) { return n >= 0; }), has_zero);
}

// roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor
Spec roll() {
  auto empty = unchecked_when_empty("roll.default", "dims",
      "an empty self is cloned before any dim is checked: dims out of range are accepted");
  Spec s("roll.default");
  s.in(Tensor("self"))
      .in(LengthList("shifts"))
      .in(DimList("dims").deps("self"))
      .joint("dims is empty when self is zero-dim", implies(rank("self") == 0, length("dims") == 0))
      .joint("len(shifts) == len(dims), or 1 when dims is empty",
             ite(length("dims") == 0, length("shifts") == 1, length("shifts") == length("dims")));
  return checked_unless_empty(s, empty, "dims[i] in [-self.rank, self.rank)",
                              all_entries("dims", [](Term d) { return d >= -rank("self") && d < rank("self"); }));
}

// tril and triu(Tensor self, int diagonal=0) -> Tensor: any diagonal of a matrix or a batch of them.
Spec triangle(const std::string& op) {
  auto empty = unchecked_when_empty(op, "rank", "an empty self is returned before its rank is checked: a 1-d empty self is accepted");
  Spec s(op);
  s.in(Tensor("self")).in(Int("diagonal"));
  return checked_unless_empty(s, empty, "self.rank >= 2", rank("self") >= 2);
}
Spec tril() { return triangle("tril.default"); }
Spec triu() { return triangle("triu.default"); }

// repeat_interleave.self_int(Tensor self, int repeats, int? dim=None, *, int? output_size=None)
// repeats each element of self along dim (of the flattened self when dim is None).
Spec repeat_interleave() {
  auto empty = unchecked_when_empty("repeat_interleave.self_int", "repeats",
      "when self is empty along dim (or empty when dim is None) the kernel returns before checking repeats and "
      "output_size: a negative repeats or an output_size that is not the result's size is accepted");
  Term along = ite(is_none("dim"), numel("self"), size("self", value("dim")));
  Spec s("repeat_interleave.self_int");
  s.in(Tensor("self"))
      .in(Int("repeats"))
      .in(DimOpt("dim").deps("self")
            .value(dim_of("self")))
      .kw(IntOpt("output_size"))
      .joint("dim is None when self is zero-dim", implies(rank("self") == 0, is_none("dim")));
  Emptiness none_along{along == 0, "self.size(dim) > 0", "self.size(dim) == 0"};
  checked_unless_empty(s, empty, "repeats >= 0", value("repeats") >= 0, none_along);
  return checked_unless_empty(s, empty, "output_size is None or repeats * self.size(dim) (self.numel() when dim is None)",
                              is_none("output_size") || value("output_size") == value("repeats") * along, none_along);
}

// _fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor: the real-to-complex
// FFT of self over the dims `dim` (its callers pass them wrapped and unique), not scaled, scaled by
// 1/sqrt(n) or by 1/n (normalization 0, 1, 2), keeping half of the last dim when onesided. The CPU
// kernel (pocketfft) takes float32 and float64 self; float16 is for CUDA.
Spec fft_r2c() {
  using S = c10::ScalarType;
  auto unchecked_dims = deviation("_fft_r2c.dim_unchecked",
      "the kernel reads self's size at dim[-1] and writes the result's size there (and reads self's sizes at every dim "
      "when normalizing) before pocketfft checks the dims: a dim out of [0, self.rank) reads and writes outside the "
      "size vectors (SIGSEGV, \"free(): invalid size\") or else is refused (\"bad axis number\")",
      "ops-fuzz sweep _fft_r2c.default --invalid --config contract --seed 0 --max 1000",
      {kSegfault, kAborted});
  auto empty_signal = deviation("_fft_r2c.empty_signal_unchecked",
      "a transformed dim of size 0 is accepted: onesided, the result has size 1 along it, never written",
      "ops-fuzz sweep _fft_r2c.default --invalid --config contract,empty --seed 0 --max 300");
  auto unique_when_empty = unchecked_when_empty("_fft_r2c.default", "dim_unique",
      "pocketfft returns before checking the dims when self is empty: a dim given twice is accepted");
  Spec s("_fft_r2c.default");
  s.in(Tensor("self")
            .dtype(In(std::vector{S::Float, S::Double}))
            .rank(Ge(1)))
      .in(DimList("dim").deps("self")
            .length(Ge(1))
            .length(Le("self.rank", [](const Ctx& c) { return dim_rank(c, "self"); })))
      .in(Int("normalization")
            .value(Be(0, 2)))
      .in(Bool("onesided"))
      .joint_unchecked(unchecked_dims, "dim[i] in [0, self.rank)",
                       all_entries("dim", [](Term d) { return d >= 0 && d < max(rank("self"), 1); }))
      .joint_unchecked(empty_signal, "self.size(dim[i]) >= 1", all_entries("dim", [](Term d) { return size("self", d) >= 1; }));
  return checked_unless_empty(s, unique_when_empty, "dim[i] != dim[j] for i != j", distinct_entries("dim"));
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
  static constexpr SpecFn table[] = {cat, pixel_shuffle, unfold_copy,
                                     unique2, unique_dim, unique_consecutive, flip, repeat,
                                     resize_, roll, repeat_interleave, stack, tril, triu, fft_r2c};
  return table;
}

}  // namespace opsfuzz::db
