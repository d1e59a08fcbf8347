// opsfuzz::gtest: SpecDB samples and YAML suites as GoogleTest tests, one per (sample or test
// id, target), run on the target and compared with a baseline by the runner's oracles. Targets
// follow TVM's parametrized tests: a default list that OPSFUZZ_TEST_TARGETS overrides, targets
// this machine cannot run reported skipped with the reason, known failures (XFAIL), exclusions.
//
//   opsfuzz::gtest::SpecDBTests("clamp.default").valid(20).targets({"eager_cpu", "my_backend"})
//       .known_failing({"my_backend"}, "clamp is off by one").register_tests();
//   opsfuzz::gtest::YamlTests("suite.yaml").ids({"mod_linear*"}).register_tests();
//
// Call register_tests() before RUN_ALL_TESTS() (from main, or a static initializer).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/run.h"

namespace opsfuzz::gtest {

// What a test checks, given its inputs (a deep copy, its own to change) and its target. The
// default runs the item on the target and compares it with the baseline; nullopt means passed,
// a string is the failure.
using Check = std::function<std::optional<std::string>(runner::Item& item, const std::string& target)>;

// What both kinds of tests are registered with.
struct TestOptions {
  std::vector<std::string> targets{"eager_cpu"};  // when OPSFUZZ_TEST_TARGETS names none
  std::string baseline = "eager_cpu";             // "" for none: then only statuses are judged
  std::vector<std::pair<std::vector<std::string>, std::string>> known_failing;  // targets, reason
  std::vector<std::string> excluded, only;
  Check check;          // empty: compare_with_baseline
  bool isolate = true;  // items run in isolated workers (a crashing kernel fails its test only)
};

// The options' setters, chaining (Derived: SpecDBTests or YamlTests).
template <class Derived> class Tests {
 public:
  // The targets (backends) tests run on, when OPSFUZZ_TEST_TARGETS does not name others.
  Derived& targets(std::vector<std::string> names) { return options_.targets = std::move(names), self(); }
  // What the targets are compared with ("" for none).
  Derived& baseline(std::string name) { return options_.baseline = std::move(name), self(); }
  // A failure on these targets is expected: reported skipped ("XFAIL: reason"); a pass passes
  // with an XPASS note.
  Derived& known_failing(std::vector<std::string> targets, std::string reason) {
    options_.known_failing.push_back({std::move(targets), std::move(reason)});
    return self();
  }
  // No test is registered for these targets.
  Derived& exclude(std::vector<std::string> targets) {
    options_.excluded.insert(options_.excluded.end(), targets.begin(), targets.end());
    return self();
  }
  // Tests are registered for these targets only (of those chosen).
  Derived& only(std::vector<std::string> targets) { return options_.only = std::move(targets), self(); }
  // A check of the user's instead of the comparison with the baseline.
  Derived& check(Check c) { return options_.check = std::move(c), self(); }
  Derived& isolate(bool on) { return options_.isolate = on, self(); }

  const TestOptions& options() const { return options_; }

 protected:
  TestOptions options_;

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

// Samples of SpecDB specs (and of users' registered specs): "SpecDB/add_Tensor.valid_0007/eager_cpu".
class SpecDBTests : public Tests<SpecDBTests> {
 public:
  // Ops by glob, comma-separated: "add.*,clamp.default".
  explicit SpecDBTests(std::string op_globs) : globs_(std::move(op_globs)) {}
  SpecDBTests& valid(size_t count) { return count_ = count, invalid_ = false, *this; }
  SpecDBTests& invalid(size_t count) { return count_ = count, invalid_ = true, *this; }
  SpecDBTests& seed(uint64_t s) { return seed_ = s, *this; }
  SpecDBTests& config(std::string words) { return config_ = std::move(words), *this; }
  // Registers the tests; returns how many. Throws when no spec matches or the config is bad.
  size_t register_tests();

 private:
  std::string globs_, config_;
  size_t count_ = 10;
  bool invalid_ = false;
  uint64_t seed_ = 0;
};

// Tests of a YAML suite: "Yaml/<file stem>.<test id>/<target>".
class YamlTests : public Tests<YamlTests> {
 public:
  explicit YamlTests(std::string path) : path_(std::move(path)) {}
  // Test-id patterns (exact, or a prefix ending in '*'); none: every test.
  YamlTests& ids(std::vector<std::string> patterns) { return ids_ = std::move(patterns), *this; }
  YamlTests& seed(uint64_t s) { return seed_ = s, *this; }
  // Registers the tests; returns how many. Throws when the suite is not valid, naming its errors.
  size_t register_tests();

 private:
  std::string path_;
  std::vector<std::string> ids_;
  uint64_t seed_ = 0;
};

// The cache of fixtures (generated samples, materialized suites with their modules), shared by
// the tests that use the same parameters and handed out as deep copies. OPSFUZZ_DISABLE_CACHE=1
// builds them afresh for each test.
struct CacheStats {
  size_t builds = 0;    // fixtures built (a generator or materializer run)
  size_t live = 0;      // fixtures held now
  size_t released = 0;  // fixtures let go after the last test that uses them
};
CacheStats cache_stats();

// The targets tests run on: OPSFUZZ_TEST_TARGETS (';'-separated) when set, else `defaults`.
std::vector<std::string> effective_targets(const std::vector<std::string>& defaults);

// The default check: `item` on `target`, compared with `baseline` by the runner's oracles; the
// failure names the item, its statuses, the first difference and distances.
std::optional<std::string> compare_with_baseline(const runner::Item& item, const std::string& target,
                                                 const std::string& baseline, bool isolate);

}  // namespace opsfuzz::gtest
