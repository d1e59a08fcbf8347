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

}  // namespace

std::span<const SpecFn> shape_specs() {
  static constexpr SpecFn table[] = {cat, constant_pad_nd, pixel_shuffle, unfold_copy};
  return table;
}

}  // namespace opsfuzz::db
