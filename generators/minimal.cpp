#include "generators/minimal.h"

#include <c10/core/ScalarType.h>

#include <algorithm>
#include <cmath>
#include <queue>

#include "argtypes/rng.h"
#include "generators/diversity.h"
#include "generators/generators.h"

namespace opsfuzz {

namespace {

enum Category : uint64_t { kBoolean = 1, kInteger = 2, kFloating = 4, kComplex = 8 };

Category category(c10::ScalarType t) {
  if (t == c10::ScalarType::Bool) return kBoolean;
  if (c10::isComplexType(t)) return kComplex;
  return c10::isFloatingType(t) ? kFloating : kInteger;
}

// A dim of size 0 (2); else one of size 1 (1); else neither (0).
uint64_t extent(const IntList& shape) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 2;
  return std::find(shape.begin(), shape.end(), 1) != shape.end() ? 1 : 0;
}

uint64_t integer_class(int64_t v) { return v < -1 ? 0 : v == -1 ? 1 : v == 0 ? 2 : v == 1 ? 3 : 4; }

// The values of an argument's factors, in a fixed order per kind of argument.
std::vector<uint64_t> factors(const MetaArg& m) {
  if (m.none) return {diversity_class(m)};
  if (is_tensor(m.argtype)) {
    const TensorMeta& t = m.tensor();
    return {category(t.dtype), std::min<uint64_t>(t.shape.size(), 5), extent(t.shape)};
  }
  if (is_tensor_list(m.argtype)) {
    uint64_t categories = 0, rank = 0, ext = 0;
    for (const TensorMeta& t : m.tensors) {
      if (t.none) continue;
      categories |= category(t.dtype), rank = std::max<uint64_t>(rank, t.shape.size()),
                                       ext = std::max(ext, extent(t.shape));
    }
    return {std::min<uint64_t>(m.tensors.size(), 2), categories, std::min<uint64_t>(rank, 5), ext};
  }
  if (is_int_list(m.argtype)) {
    const IntList& v = std::get<IntList>(m.value);
    uint64_t classes = 0;
    for (int64_t x : v) classes |= uint64_t{1} << integer_class(x);
    return {std::min<uint64_t>(v.size(), 4), classes};
  }
  return {diversity_class(m)};
}

// Keys laid out as singles then their pairs, apart.
CoverKeys split_at(const std::vector<uint64_t>& keys, size_t singles) {
  const auto split = keys.begin() + static_cast<std::ptrdiff_t>(singles);
  return {{keys.begin(), split}, {split, keys.end()}};
}

}  // namespace

CoverKeys review_keys(const Sample& s) {
  std::vector<uint64_t> singles;
  for (size_t arg = 0; arg < s.metas.size(); ++arg) {
    const std::vector<uint64_t> values = factors(s.metas[arg]);
    for (size_t f = 0; f < values.size(); ++f) singles.push_back(mix64(mix64(arg * 16 + f) ^ values[f]));
  }
  const size_t n = singles.size();
  append_pair_keys(singles, n);
  return split_at(singles, n);
}

CoverKeys diversity_cover_keys(const Sample& s) { return split_at(diversity_keys(s.metas), s.metas.size()); }

std::set<std::string> type_categories(const Sample& s) {
  std::set<std::string> out;
  for (const MetaArg& m : s.metas)
    for (const TensorMeta& t : m.tensors) {
      if (t.none) continue;
      const Category c = category(t.dtype);
      out.insert(c == kBoolean ? "boolean" : c == kComplex ? "complex" : c == kFloating ? "floating" : "integer");
    }
  return out;
}

MinimalCover minimal_cover(std::span<const CoverKeys> candidates, double pair_share, size_t singles_target) {
  MinimalCover cover;
  KeySet singles_total, pairs_total;
  for (const CoverKeys& c : candidates) {
    for (uint64_t k : c.singles) singles_total.insert(k);
    for (uint64_t k : c.pairs) pairs_total.insert(k);
  }
  cover.singles_total = singles_total.size(), cover.pairs_total = pairs_total.size();
  const size_t singles_needed =
      singles_target == 0 ? cover.singles_total : std::min(singles_target, cover.singles_total);
  const size_t pairs_needed = static_cast<size_t>(std::ceil(pair_share * static_cast<double>(cover.pairs_total)));
  KeySet singles, pairs;
  auto gain = [&](size_t i) {
    size_t g = 0;
    if (singles.size() < singles_needed)
      for (uint64_t k : candidates[i].singles) g += !singles.contains(k);
    if (pairs.size() < pairs_needed)
      for (uint64_t k : candidates[i].pairs) g += !pairs.contains(k);
    return g;
  };
  // A stale gain is an upper bound (what is still needed only shrinks): the top is re-counted, and
  // taken when its gain still ranks first. Of equal gains, the earlier candidate.
  using Entry = std::pair<size_t, size_t>;  // (gain, index)
  auto lower = [](const Entry& a, const Entry& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(lower)> heap(lower);
  for (size_t i = 0; i < candidates.size(); ++i) heap.push({gain(i), i});
  while (!heap.empty() && (singles.size() < singles_needed || pairs.size() < pairs_needed)) {
    const size_t i = heap.top().second;
    heap.pop();
    const size_t g = gain(i);
    if (g == 0) continue;  // nothing left for it to cover
    if (!heap.empty() && lower(Entry{g, i}, heap.top())) {
      heap.push({g, i});
      continue;
    }
    cover.chosen.push_back(i);
    for (uint64_t k : candidates[i].singles) singles.insert(k);
    for (uint64_t k : candidates[i].pairs) pairs.insert(k);
  }
  cover.singles = singles.size(), cover.pairs = pairs.size();
  return cover;
}

}  // namespace opsfuzz
