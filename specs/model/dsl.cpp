// The DSL's helpers that are functions rather than templates.
#include "specs/model/dsl.h"

#include <cmath>

namespace opsfuzz::dsl {

GenRule on_ints(std::function<bool(int64_t)> rule) {
  return [rule = std::move(rule)](const Value& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) return rule(*i);
    const auto* d = std::get_if<double>(&v);
    // A double beyond int64's range is no index, size or pad of any tensor: broken.
    return d && std::trunc(*d) == *d && std::fabs(*d) < 0x1p63 && rule(static_cast<int64_t>(*d));
  };
}

GenSets split(int64_t lo, int64_t hi, std::function<bool(int64_t)> rule) {
  GenSets g(on_ints(rule));
  for (int64_t v = lo; v <= hi; ++v) (rule(v) ? g.valid : g.invalid).push_back(v);
  return g;
}

}  // namespace opsfuzz::dsl
