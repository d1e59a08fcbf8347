#include "specs/db/db.h"
#include "specs/db/families.h"

#include "argtypes/names.h"

#include <fnmatch.h>

#include <algorithm>
#include <utility>

namespace opsfuzz {

namespace {

struct Registry {
  std::deque<Spec> specs;
  bool built = false;
  std::vector<std::function<Spec()>> pending;  // users' builders until the SpecDB is built
};

Registry& registry() {
  static Registry r;
  return r;
}

void add(std::deque<Spec>& specs, Spec spec) {
  spec.check();  // an unknown name or a cycle fails at start-up, naming the spec
  for (Spec& s : specs)
    if (s.op() == spec.op()) {
      s = std::move(spec);
      return;
    }
  specs.push_back(std::move(spec));
}

}  // namespace

const std::deque<Spec>& spec_db() {
  Registry& r = registry();
  if (!r.built) {
    r.built = true;
    for (auto family : {db::binary_specs, db::unary_specs, db::reduction_specs, db::shape_specs, db::indexing_specs,
                        db::convolution_specs, db::pooling_specs, db::norm_specs, db::creation_specs,
                        db::view_specs, db::padding_specs, db::linalg_specs, db::einsum_specs, db::upsample_specs})
      for (db::SpecFn build : family()) add(r.specs, build());
    for (auto& build : std::exchange(r.pending, {})) add(r.specs, build());
  }
  return r.specs;
}

void register_spec(std::function<Spec()> build) {
  Registry& r = registry();
  if (r.built)
    add(r.specs, build());
  else
    r.pending.push_back(std::move(build));
}

const Spec* find_spec(std::string_view op) {
  for (const auto& s : spec_db())
    if (s.op() == op) return &s;
  return nullptr;
}

std::vector<const Spec*> specs_matching(const std::string& glob) {
  std::vector<const Spec*> out;
  for (const auto& s : spec_db())
    if (::fnmatch(glob.c_str(), s.op().c_str(), 0) == 0) out.push_back(&s);
  return out;
}

std::vector<std::string> close_specs(std::string_view op, size_t n) {
  std::vector<std::string> names, out;
  for (const auto& s : spec_db()) {
    names.push_back(s.op());
    if (out.size() < n && s.op().find(op) != std::string::npos) out.push_back(s.op());  // "add" finds "add.Tensor"
  }
  for (const std::string& name : closest(op, names, n))  // then typos, as every "did you mean" finds them
    if (out.size() < n && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  return out;
}

}  // namespace opsfuzz
