#include "tools/check.h"

#include <c10/util/Exception.h>

#include <algorithm>

#include "argtypes/text.h"
#include "opcall/opcall.h"
#include "specs/db/db.h"
#include "suite/materialize.h"

namespace opsfuzz {

namespace {

// The SpecDB's name of an overload: "aten::add.Tensor" -> "add.Tensor", "aten::abs" -> "abs.default".
std::string spec_name(const c10::FunctionSchema& schema) {
  std::string name = schema.name();
  if (name.rfind("aten::", 0) != 0) return name;  // no spec outside aten
  name = name.substr(6);
  return name + "." + (schema.overload_name().empty() ? "default" : schema.overload_name());
}

// A bound stack (one value per schema argument) in the order of the spec's arguments, by name.
std::vector<c10::IValue> in_spec_order(const Spec& spec, const c10::FunctionSchema& schema,
                                       const opcall::Stack& stack) {
  std::vector<c10::IValue> out;
  for (const ArgSpec& a : spec.args()) {
    auto index = schema.argumentIndexWithName(a.name);
    if (!index || static_cast<size_t>(*index) >= stack.size())
      throw std::invalid_argument(spec.op() + ": the spec's argument '" + a.name + "' is not in the schema");
    out.push_back(stack[static_cast<size_t>(*index)]);
  }
  return out;
}

TestCheck::Status status_of(const Classification& c) {
  if (!c.broken.empty()) return TestCheck::Invalid;
  return c.unevaluated.empty() ? TestCheck::Valid : TestCheck::Undecided;
}

}  // namespace

SpecInputs bind_to_spec(std::string_view op, const opcall::Stack& args, const opcall::Kwargs& kwargs) {
  opcall::Resolved call = opcall::resolve(op, args, kwargs);
  const c10::FunctionSchema& schema = call.op->schema();
  SpecInputs out;
  out.overload = call.op->name();
  out.spec = find_spec(spec_name(schema));
  if (out.spec) out.values = in_spec_order(*out.spec, schema, call.stack);
  return out;
}

SpecInputs spec_inputs(const suite::Test& test, uint64_t run_seed) {
  suite::Inputs inputs = suite::materialize_inputs(test, run_seed);
  return bind_to_spec(test.op, inputs.args, inputs.kwargs);
}

TestCheck check_test(const suite::Test& test, uint64_t run_seed, const Config& cfg) {
  TestCheck check;
  check.id = test.id;
  check.op = test.module ? test.module->path : test.op;
  if (test.module) {
    check.status = TestCheck::NoSpec, check.message = "a module";
    return check;
  }
  try {
    SpecInputs inputs = spec_inputs(test, run_seed);
    if (!inputs.spec) {
      check.status = TestCheck::NoSpec, check.op = inputs.overload;
      return check;
    }
    check.op = inputs.spec->op();
    check.classification = classify(*inputs.spec, inputs.values, cfg);
    check.status = status_of(check.classification);
  } catch (const c10::Error& e) {
    check.status = TestCheck::Error, check.message = e.what_without_backtrace();
  } catch (const std::exception& e) { check.status = TestCheck::Error, check.message = e.what(); }
  return check;
}

std::string format(const TestCheck& check) {
  const Classification& c = check.classification;
  std::string line = check.id + "  " + check.op + "  ";
  switch (check.status) {
    case TestCheck::Valid: line += "valid"; break;
    case TestCheck::Invalid: line += "invalid: " + join(c.broken, "; "); break;
    case TestCheck::Undecided: line += "undecided"; break;
    case TestCheck::NoSpec: line += "no spec" + (check.message.empty() ? "" : " (" + check.message + ")"); break;
    case TestCheck::Error: {
      std::string message = check.message;
      std::replace(message.begin(), message.end(), '\n', ' ');
      line += "error: " + message;
      break;
    }
  }
  auto detail = [&](const char* what, const std::vector<std::string>& list) {
    if (!list.empty()) line += "\n  " + std::string(what) + ": " + join(list, "; ");
  };
  detail("deviations", c.deviations);
  detail("not evaluated", c.unevaluated);
  detail("outside the generation scope", c.outside_scope);
  return line;
}

}  // namespace opsfuzz
