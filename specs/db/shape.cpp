#include "specs/db/families.h"

#include <map>
#include <numeric>

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

int64_t rank_of_first(const Ctx& c) { return static_cast<int64_t>(c.meta(0).tensors.at(0).shape.size()); }

}  // namespace

void add_shape(std::vector<Spec>& db) {
  // cat(Tensor[] tensors, int dim=0) -> Tensor
  db.push_back(Spec("cat.default")
      .in(TensorList("tensors")
            .length(Ge(1))
            .rank(Named("no zero-dim entries", Ge(1)))
            // cat skips 1-d empty entries without checking them (a legacy rule).
            .size(Scope(Named("no [0] entries", Ge([](const Ctx& c) { return c.count == 1 ? 1 : 0; }))))
            .rank(Named("same rank as tensors[0]", Eq([](const Ctx& c) -> std::optional<int64_t> {
              if (c.index <= 0) return std::nullopt;
              return static_cast<int64_t>(c.self().tensors.at(0).shape.size());
            })))
            .size(Named("same sizes except along one dim", Eq([](const Ctx& c) -> std::optional<int64_t> {
              if (c.entry <= 0) return std::nullopt;
              auto dims = differing_dims(c.self(), c.entry, c.partial);
              if (dims.empty() || dims[0] == c.index) return std::nullopt;
              return c.self().tensors.at(0).shape.at(static_cast<size_t>(c.index));
            }))))
      .in(Dim("dim").deps(0)
            .value(Named("dim_of(tensors[0])", Be([](const Ctx& c) { return -rank_of_first(c); },
                                                [](const Ctx& c) { return rank_of_first(c) - 1; })))
            .value(Named("the dim the entries differ along", In([](const Ctx& c) -> std::optional<IntList> {
              auto dims = differing_dims(c.meta(0), c.length(0), nullptr);
              if (dims.empty()) return std::nullopt;
              int64_t r = static_cast<int64_t>(c.meta(0).tensors[0].shape.size());
              return IntList{dims[0], dims[0] - r};
            })))));

  // split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]
  enum { Self, SplitSizes, SplitDim };
  db.push_back(Spec("split_with_sizes_copy.default")
      .in(Tensor("self")
            .rank(Ge(1)))
      .in(LengthList("split_sizes").deps(Self, SplitDim))
      .in(Dim("dim").deps(Self)
            .value(dim_of(Self)))
      .joint("split_sizes non-negative", all_entries(SplitSizes, [](Term s) { return s >= 0; }))
      .joint("split_sizes sum to self.size(dim)", sum(elems(SplitSizes)) == size(Self, value(SplitDim))));

  // view_copy(Tensor self, SymInt[] size) -> Tensor
  enum { NewShape = 1 };
  auto entry = [](int64_t i) { return elem(NewShape, i); };
  Term inferred = any(elems(NewShape), [=](int64_t i) { return entry(i) == -1; });
  Term known = prod(elems(NewShape), [=](int64_t i) { return ite(entry(i) == -1, 1, entry(i)); });
  db.push_back(Spec("view_copy.default")
      .in(Tensor("self"))
      .in(Shape("size").deps(Self))
      .joint("sizes are -1 or non-negative", all_entries(NewShape, [](Term s) { return s >= -1; }))
      .joint("at most one -1", sum(elems(NewShape), [=](int64_t i) { return entry(i) == -1; }) <= 1)
      .joint("sizes match self.numel()",
             ite(inferred, known >= 1 && numel(Self) % known == 0, known == numel(Self))));

  // constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
  db.push_back(Spec("constant_pad_nd.default")
      .in(Tensor("self"))
      .in(LengthList("pad").deps(0)
            .length(Named("even, at most 2*rank", In([](const Ctx& c) {
              IntList ok;
              for (int64_t n = 0; n <= 2 * c.rank(0); n += 2) ok.push_back(n);
              return ok;
            })))
            .value(Named("padded size positive", Gen([](const Ctx& c) {
              // The kernel narrows by the first pad of a pair, then by the second; the padded
              // size must be positive. Between "valid" and "invalid" lie sizes of 0, which the
              // kernel takes only when no pad is positive: they are left out of both.
              int64_t size = c.size(0, c.rank(0) - 1 - c.index / 2);
              int64_t lo = -size, broken = -size;  // narrowing may start at the end
              if (c.index % 2) {
                int64_t first = (*c.partial)[static_cast<size_t>(c.index - 1)];
                lo = std::max(1 - size - first, -size - std::min<int64_t>(first, 0));
                broken = -size - std::min<int64_t>(first, 0);  // narrows to a negative length
              }
              GenSets g;
              for (int64_t v = -9; v <= 9; ++v) {
                if (v >= lo) g.valid.push_back(v);
                else if (v < broken) g.invalid.push_back(v);
              }
              return g;
            }))))
      .in(Scalar("value").deps(0, 1)  // written only where a pad is positive
            .value(fits_dtype([](const Ctx& c) -> std::optional<c10::ScalarType> {
              const auto& pad = c.ints(1);
              if (std::none_of(pad.begin(), pad.end(), [](int64_t p) { return p > 0; })) return std::nullopt;
              return c.dtype(0);
            }))));

  // pixel_shuffle(Tensor self, int upscale_factor) -> Tensor
  // An upscale factor that is a multiple of 2^32 divides by zero in this build, and one whose
  // square wraps returns negative sizes: the limits keep it small.
  enum { Factor = 1 };
  db.push_back(Spec("pixel_shuffle.default")
      .in(Tensor("self")  // the kernel refuses channels-last 3d layouts of 5-d tensors
            .contiguous()
            .rank(Ge(3)))
      .in(Int("upscale_factor").deps(Self))
      .joint("upscale_factor positive", value(Factor) >= 1)
      .joint("channels divisible by upscale_factor^2", size(Self, -3) % (value(Factor) * value(Factor)) == 0));

  // unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor
  // (the view unfold returns negative sizes for a negative size when another dim is empty)
  enum { Dimension = 1, WindowSize, Step };
  db.push_back(Spec("unfold_copy.default")
      .in(Tensor("self"))
      .in(Dim("dimension").deps(Self)
            .value(dim_of(Self)))
      .in(Int("size").deps(Self, Dimension))
      .in(Int("step")
            .value(Gt(0)))
      .joint("size non-negative", value(WindowSize) >= 0)
      .joint("size at most self.size(dimension)",
             value(WindowSize) <= ite(rank(Self) == 0, 1, size(Self, value(Dimension)))));
}

}  // namespace opsfuzz::db
