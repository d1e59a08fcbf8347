#include "specs/db/db.h"
#include "specs/db/families.h"

#include <algorithm>

namespace opsfuzz {

const std::vector<Spec>& spec_db() {
  static const std::vector<Spec> db = [] {
    std::vector<Spec> specs;
    for (auto family : {db::binary_specs, db::unary_specs, db::reduction_specs, db::shape_specs, db::indexing_specs,
                        db::conv_pool_specs, db::norm_specs, db::creation_specs})
      for (db::SpecFn build : family()) {
        specs.push_back(build());
        specs.back().check();  // an unknown name or a cycle fails at start-up, naming the spec
      }
    return specs;
  }();
  return db;
}

const Spec* find_spec(std::string_view op) {
  for (const auto& s : spec_db())
    if (s.op() == op) return &s;
  return nullptr;
}

namespace {
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::vector<std::string> close_specs(std::string_view op, size_t n) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& s : spec_db()) {
    size_t d = edit_distance(op, s.op());
    if (s.op().find(op) != std::string::npos) d = 0;  // a prefix like "add" finds "add.Tensor"
    scored.emplace_back(d, s.op());
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (const auto& [d, name] : scored)
    if (out.size() < n && d <= std::max<size_t>(3, op.size() / 2)) out.push_back(name);
  return out;
}

}  // namespace opsfuzz
