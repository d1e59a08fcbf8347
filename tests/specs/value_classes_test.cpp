// Integer arguments reach every value class their contract allows: over 1,000 valid samples of
// each spec (seed 0, the contract configuration: values a kernel mishandles are deviations, not
// out of the contract), each integer argument (and each entry position of
// an int list) takes a negative value below -1, -1, 0, 1 and a value above 1, unless the
// contract rules that class out. A class is "allowed" when some valid sample, with that argument
// (or one entry) replaced by a value of the class, is still valid by the spec's own classifier
// and inside its scope: then generation should have reached it too.
#include "generators/classify.h"
#include "specs/db/db.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>

namespace opsfuzz {
namespace {

constexpr size_t kSamples = 1000;
constexpr size_t kProbes = 40;  // valid samples tried per unreached class
enum Class { Below, MinusOne, Zero, One, Above, kClasses };
constexpr const char* kNames[] = {"< -1", "-1", "0", "1", "> 1"};

Class class_of(int64_t v) { return v < -1 ? Below : v == -1 ? MinusOne : v == 0 ? Zero : v == 1 ? One : Above; }

// Members of a class to try, nearest first (dims and indices are only valid near zero).
std::vector<int64_t> members(Class c) {
  switch (c) {
    case Below: return {-2, -3, -4, -6, -8};
    case MinusOne: return {-1};
    case Zero: return {0};
    case One: return {1};
    default: return {2, 3, 4, 6, 8};
  }
}

// The integers of one argument's value: its entries for a list, else the value (none when None).
std::vector<int64_t> integers(const c10::IValue& v) {
  if (v.isInt()) return {v.toInt()};
  if (v.isIntList()) return v.toIntVector();
  return {};
}

bool is_integer_arg(const ArgSpec& a) { return is_int(a.type) || is_int_list(a.type); }

// Whether replacing argument `arg` (entry 0 of a list) of `inputs` by `v` keeps them valid.
bool allows(const Spec& spec, std::vector<c10::IValue> inputs, size_t arg, int64_t v) {
  auto& slot = inputs[arg];
  if (slot.isIntList()) {
    auto list = slot.toIntVector();
    if (list.empty()) return false;
    list[0] = v;
    slot = c10::IValue(list);
  } else {
    slot = c10::IValue(v);
  }
  try {
    auto c = classify(spec, inputs);
    return c.valid() && c.outside_scope.empty();
  } catch (const std::exception&) { return false; }
}

TEST(IntegerArguments, ReachEveryValueClassTheirContractAllows) {
  size_t args = 0, missing = 0;
  for (const auto& spec : spec_db()) {
    std::vector<size_t> ints;
    for (size_t i = 0; i < spec.args().size(); ++i)
      if (is_integer_arg(spec.args()[i])) ints.push_back(i);
    if (ints.empty()) continue;
    ArgumentTupleGenerator gen(spec, Config::parse("contract"), 0, Validity::Valid);
    std::vector<std::vector<c10::IValue>> valid;
    std::vector<std::array<bool, kClasses>> reached(ints.size(), std::array<bool, kClasses>{});
    Sample s;
    for (size_t n = 0; n < kSamples && gen.next(s); ++n) {
      auto inputs = in_spec_order(spec, s);
      for (size_t k = 0; k < ints.size(); ++k)
        for (int64_t v : integers(inputs[ints[k]])) reached[k][class_of(v)] = true;
      if (valid.size() < kProbes) valid.push_back(std::move(inputs));
    }
    for (size_t k = 0; k < ints.size(); ++k) {
      ++args;
      for (int c = 0; c < kClasses; ++c) {
        if (reached[k][c]) continue;
        bool allowed = false;
        for (const auto& inputs : valid)
          for (int64_t v : members(static_cast<Class>(c)))
            if (!allowed && allows(spec, inputs, ints[k], v)) allowed = true;
        if (!allowed) continue;
        ++missing;
        ADD_FAILURE() << spec.op() << ": " << spec.args()[ints[k]].name << " never takes a value " << kNames[c]
                      << " in " << kSamples << " valid samples, though its contract allows one";
      }
    }
  }
  std::printf("%zu integer arguments, %zu allowed value classes never reached\n", args, missing);
  EXPECT_GT(args, 100u);
}

}  // namespace
}  // namespace opsfuzz
