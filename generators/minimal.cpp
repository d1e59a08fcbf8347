#include "generators/minimal.h"

#include <c10/core/ScalarType.h>

#include <cmath>
#include <queue>

#include "generators/diversity.h"
#include "generators/generators.h"

namespace opsfuzz {

namespace {

const char* category(c10::ScalarType t) {
  if (t == c10::ScalarType::Bool) return "boolean";
  if (c10::isComplexType(t)) return "complex";
  if (c10::isFloatingType(t)) return "floating";
  return "integer";
}

struct Keys {
  std::vector<uint64_t> singles, pairs;
};

Keys keys_of(const Sample& s) {
  std::vector<uint64_t> all = diversity_keys(s.metas);
  const auto split = all.begin() + static_cast<std::ptrdiff_t>(s.metas.size());
  return {{all.begin(), split}, {split, all.end()}};
}

}  // namespace

std::set<std::string> type_categories(const Sample& s) {
  std::set<std::string> out;
  for (const MetaArg& m : s.metas)
    for (const TensorMeta& t : m.tensors) out.insert(category(t.dtype));
  return out;
}

MinimalCover minimal_cover(std::span<const Sample> pool, double pair_share) {
  MinimalCover cover;
  std::vector<Keys> keys;
  KeySet singles_total, pairs_total;
  for (const Sample& s : pool) {
    keys.push_back(keys_of(s));
    for (uint64_t k : keys.back().singles) singles_total.insert(k);
    for (uint64_t k : keys.back().pairs) pairs_total.insert(k);
    for (const std::string& c : type_categories(s)) cover.categories_total.insert(c);
  }
  cover.singles_total = singles_total.size(), cover.pairs_total = pairs_total.size();
  const size_t pairs_needed = static_cast<size_t>(std::ceil(pair_share * static_cast<double>(cover.pairs_total)));
  KeySet singles, pairs;
  auto gain = [&](size_t i) {
    size_t g = 0;
    for (uint64_t k : keys[i].singles) g += !singles.contains(k);
    if (pairs.size() < pairs_needed)
      for (uint64_t k : keys[i].pairs) g += !pairs.contains(k);
    return g;
  };
  // A stale gain is an upper bound (the classes still needed only shrink): the top is re-counted
  // until its gain holds against the next one's bound. Of equal gains, the earlier sample.
  using Entry = std::pair<size_t, size_t>;  // (gain, pool index)
  auto lower = [](const Entry& a, const Entry& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(lower)> heap(lower);
  for (size_t i = 0; i < pool.size(); ++i) heap.push({gain(i), i});
  while (!heap.empty() && (singles.size() < cover.singles_total || pairs.size() < pairs_needed)) {
    const auto [stale, i] = heap.top();
    heap.pop();
    const size_t g = gain(i);
    if (g == 0) continue;  // nothing left for it to cover
    if (!heap.empty() && g < stale && lower(Entry{g, i}, heap.top())) {
      heap.push({g, i});
      continue;
    }
    cover.chosen.push_back(i);
    for (uint64_t k : keys[i].singles) singles.insert(k);
    for (uint64_t k : keys[i].pairs) pairs.insert(k);
    cover.singles_after.push_back(singles.size());
    for (const std::string& c : type_categories(pool[i])) cover.categories.insert(c);
  }
  cover.singles = singles.size(), cover.pairs = pairs.size();
  return cover;
}

}  // namespace opsfuzz
