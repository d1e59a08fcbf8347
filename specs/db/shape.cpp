#include "specs/db/families.h"

#include <map>
#include <numeric>

namespace opsfuzz::db {
using namespace dsl;

namespace {

int64_t sum(const IntList& l) { return std::accumulate(l.begin(), l.end(), int64_t{0}); }
int64_t product(const IntList& l) { return std::accumulate(l.begin(), l.end(), int64_t{1}, std::multiplies<>()); }

// The fewest factors, each in [1, max], whose product is n (a large number when impossible).
int64_t min_factors(int64_t n, int64_t max) {
  static thread_local std::map<std::pair<int64_t, int64_t>, int64_t> memo;
  if (n == 1) return 0;
  auto [it, fresh] = memo.try_emplace({n, max}, 1 << 20);
  if (!fresh) return it->second;
  int64_t best = 1 << 20;
  for (int64_t d = std::min(n, max); d >= 2; --d)
    if (n % d == 0) best = std::min(best, 1 + min_factors(n / d, max));
  return memo[{n, max}] = best;
}

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
  db.push_back(Spec("split_with_sizes_copy.default")
      .in(Tensor("self")
            .rank(Ge(1)))
      .in(LengthList("split_sizes").deps(0, 2)
            .length(Ge(1))
            .value(Named("non-negative, summing to self.size(dim)", Be(
                [](const Ctx& c) { return c.index + 1 < c.count ? 0 : c.size(0, c.as_int(2)) - sum(*c.partial); },
                [](const Ctx& c) { return c.size(0, c.as_int(2)) - sum(*c.partial); }))))
      .in(Dim("dim").deps(0)
            .value(dim_of(0))));

  // view_copy(Tensor self, SymInt[] size) -> Tensor
  db.push_back(Spec("view_copy.default")
      .in(Tensor("self"))
      .in(Shape("size").deps(0)
            .value(Scope(Named("no inferred (-1) size", Ge(0))))
            .length(Scope(Ge([](const Ctx& c) { return min_factors(c.numel(0), 8); })))
            .value(Named("product equals self.numel()", In([](const Ctx& c) {
              int64_t rest = c.numel(0) / std::max<int64_t>(1, product(*c.partial));
              int64_t slots = c.count - c.index - 1;
              IntList ok;
              for (int64_t d : divisors(rest, 8))
                if (min_factors(rest / d, 8) <= slots) ok.push_back(d);
              return ok;
            })))));

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
}

}  // namespace opsfuzz::db
