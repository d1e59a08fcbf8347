// The SpecDB: every operator spec, registered once from the op-family files, and the specs users
// register from their own code (specs of their own operators, or replacements of ours).
#pragma once

#include "specs/model/spec.h"

#include <deque>
#include <functional>
#include <string_view>
#include <vector>

namespace opsfuzz {

// A deque: registering a spec never moves the others (samples point to their specs).
const std::deque<Spec>& spec_db();
const Spec* find_spec(std::string_view op);  // nullptr when unknown
// The specs whose op matches a shell glob ("add.*"), in SpecDB order.
std::vector<const Spec*> specs_matching(const std::string& glob);

// Adds the spec `build` makes, or replaces the spec of the same op. Safe from a static
// initializer (OPSFUZZ_REGISTER_SPEC): builders registered before the SpecDB is first used run
// when it is built, after ours; later ones run at once. A spec that fails its check (an unknown
// name, a cycle) throws, naming it.
void register_spec(std::function<Spec()> build);

struct SpecRegistration {
  explicit SpecRegistration(std::function<Spec()> build) { register_spec(std::move(build)); }
};

#define OPSFUZZ_CONCAT_(a, b) a##b
#define OPSFUZZ_CONCAT(a, b) OPSFUZZ_CONCAT_(a, b)
// At namespace scope: OPSFUZZ_REGISTER_SPEC(my_op_spec); with `Spec my_op_spec()`.
#define OPSFUZZ_REGISTER_SPEC(build) \
  static const ::opsfuzz::SpecRegistration OPSFUZZ_CONCAT(opsfuzz_spec_registration_, __LINE__){build}
// Ops of the SpecDB whose names are closest to `op` (for "did you mean").
std::vector<std::string> close_specs(std::string_view op, size_t n = 3);

}  // namespace opsfuzz
