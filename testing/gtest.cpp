#include "testing/gtest.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "argtypes/text.h"
#include "generators/generators.h"
#include "runner/results.h"
#include "specs/db/db.h"
#include "suite/ids.h"
#include "suite/modules.h"
#include "suite/suite.h"

namespace opsfuzz::gtest {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool cache_disabled() {
  const char* v = std::getenv("OPSFUZZ_DISABLE_CACHE");
  return v && *v && std::string(v) != "0";
}

CacheStats& stats() {
  static CacheStats s;
  return s;
}

// A copy no test can change another's inputs through: tensors cloned, modules cloned.
runner::Item deep_copy(const runner::Item& item) {
  runner::Item copy = item;
  for (runner::Side& side : copy.sides)
    if (side.call) {
      side.call = runner::deep_copy(*side.call);
      if (side.call->module) side.call->module = side.call->module->clone();
    }
  return copy;
}

// One cache entry: the items that tests with the same parameters share, built on first use and
// let go after the last test that will run (GoogleTest's filter and sharding applied) used it.
class Fixture {
 public:
  // What building gives: the items, and when a sample stream ended before giving every item it
  // was registered for, why.
  struct Built {
    std::vector<runner::Item> items;
    std::string ended;
  };
  explicit Fixture(std::function<Built()> build) : build_(std::move(build)) {}

  void add_user(const ::testing::TestInfo* test) { users_.push_back(test); }

  // A test that uses the fixture starts. The first counts the tests that will run (GoogleTest's
  // filter and sharding are applied by then).
  void begin() {
    if (remaining_ < 0)
      remaining_ = std::count_if(users_.begin(), users_.end(), [](auto* t) { return t->should_run(); });
  }

  // A deep copy of item k. Throws what building threw, and why the items ended before k.
  runner::Item item(size_t k) {
    std::optional<Built> fresh;
    const Built* built = nullptr;
    if (cache_disabled()) {
      fresh = build();
      built = &*fresh;
    } else {
      if (!built_) built_ = build(), ++stats().live;
      built = &*built_;
    }
    if (k >= built->items.size())
      throw std::runtime_error(built->ended.empty() ? "no item " + std::to_string(k) : built->ended);
    return deep_copy(built->items[k]);
  }

  // A test that used the fixture has ended.
  void done() {
    if (--remaining_ <= 0 && built_) built_.reset(), --stats().live, ++stats().released;
  }

 private:
  Built build() {
    ++stats().builds;
    return build_();
  }

  std::function<Built()> build_;
  std::optional<Built> built_;
  std::vector<const ::testing::TestInfo*> users_;
  std::ptrdiff_t remaining_ = -1;
};

// What the reproducing command needs for a backend of the user's.
std::string plugin_hint(const std::string& target) {
  if (runner::is_builtin_backend(target)) return "";
  return "\n  (" + target + " is not built into ops-fuzz: add --load LIB, a library that registers it)";
}

// What one registered test needs.
struct Case {
  std::shared_ptr<Fixture> fixture;
  size_t index = 0;  // in the fixture
  std::string what;  // "add.Tensor valid sample 7", for messages
  std::string target, baseline;
  std::optional<std::string> unavailable;  // why this machine cannot run the target
  std::optional<std::string> xfail;        // the known failure's reason
  Check check;
  bool isolate = true;
  std::string reproduce;  // the ops-fuzz command
};

class RegisteredTest : public ::testing::Test {
 public:
  explicit RegisteredTest(Case c) : c_(std::move(c)) {}

  void TestBody() override {
    c_.fixture->begin();
    struct Done {
      Fixture& f;
      ~Done() { f.done(); }
    } done{*c_.fixture};
    if (c_.unavailable) GTEST_SKIP() << "target " << c_.target << " unavailable: " << *c_.unavailable;
    std::optional<runner::Item> item;
    std::string setup_error;
    try {
      item = c_.fixture->item(c_.index);
    } catch (const std::exception& e) { setup_error = e.what(); }
    if (!setup_error.empty()) return setup_failure(setup_error);
    for (const runner::Side& side : item->sides)
      if (!side.call) {
        if (side.skipped) GTEST_SKIP() << side.error;
        return setup_failure(item->pair() ? side.id + ": " + side.error : side.error);
      }
    std::optional<std::string> failure =
        c_.check ? c_.check(*item, c_.target) : compare_with_baseline(*item, c_.target, c_.baseline, c_.isolate);
    if (failure && c_.xfail) GTEST_SKIP() << "XFAIL: " << *c_.xfail << "\n" << *failure;
    if (failure) FAIL() << *failure << "\nreproduce: " << c_.reproduce << plugin_hint(c_.target);
    if (c_.xfail) {
      RecordProperty("XPASS", *c_.xfail);
      std::printf("XPASS: %s (expected to fail: %s)\n", c_.what.c_str(), c_.xfail->c_str());
    }
  }

 private:
  // Distinct from a failed comparison: the test's inputs could not be made.
  void setup_failure(const std::string& why) {
    RecordProperty("setup_failure", why);
    ADD_FAILURE() << "SETUP FAILURE of " << c_.what << ": " << why;
  }

  Case c_;
};

std::set<std::string>& registered_names() {
  static std::set<std::string> names;
  return names;
}

std::optional<std::string> unavailable(const std::string& target) {
  try {
    return runner::find_backend(target)->unavailable();
  } catch (const std::exception& e) { return std::string(e.what()); }
}

// The options as registered: the targets after OPSFUZZ_TEST_TARGETS, only() and exclude().
TestOptions resolved(TestOptions o) {
  std::vector<std::string> targets;
  for (const std::string& t : effective_targets(o.targets))
    if ((o.only.empty() || contains(o.only, t)) && !contains(o.excluded, t) && !contains(targets, t))
      targets.push_back(t);
  o.targets = std::move(targets);
  return o;
}

std::optional<std::string> xfail_reason(const TestOptions& o, const std::string& target) {
  for (const auto& [targets, reason] : o.known_failing)
    if (contains(targets, target)) return reason;
  return std::nullopt;
}

// How the tests of a fixture's item k are named: "<suite>.<test>/<target>", and `what` in messages.
struct ItemName {
  std::string suite, test, what;
};

// Registers one test per (item, target).
size_t register_cases(const TestOptions& o, const std::shared_ptr<Fixture>& fixture, const std::vector<ItemName>& names,
                      const std::function<std::string(size_t, const std::string&)>& reproduce) {
  std::map<std::string, std::optional<std::string>> why;
  for (const std::string& t : o.targets) why[t] = unavailable(t);
  size_t n = 0;
  for (size_t k = 0; k < names.size(); ++k)
    for (const std::string& target : o.targets) {
      const ItemName& name = names[k];
      Case c{fixture,
             k,
             name.what,
             target,
             o.baseline == target ? "" : o.baseline,
             why[target],
             xfail_reason(o, target),
             o.check,
             o.isolate,
             reproduce(k, target)};
      std::string test = name.test + "/" + identifier(target);
      if (!registered_names().insert(name.suite + "." + test).second)
        throw std::invalid_argument("the test " + name.suite + "." + test + " is registered twice");
      const ::testing::TestInfo* info =
          ::testing::RegisterTest(name.suite.c_str(), test.c_str(), nullptr, name.what.c_str(), __FILE__, __LINE__,
                                  [c = std::move(c)]() -> ::testing::Test* { return new RegisteredTest(c); });
      fixture->add_user(info);
      ++n;
    }
  return n;
}

// A value in a failure message: a tensor's shape and dtype (and values, when few), else as printed.
std::string show(const c10::IValue& v) {
  std::ostringstream out;
  if (!v.isTensor()) {
    out << v;
    return out.str();
  }
  const at::Tensor& t = v.toTensor();
  out << "Tensor" << t.sizes() << " " << t.scalar_type();
  if (t.numel() <= 16 && !t.is_complex()) {
    at::Tensor flat = t.reshape({-1}).to(at::kDouble);
    out << " [";
    for (int64_t e = 0; e < flat.numel(); ++e) out << (e ? ", " : "") << flat[e].item<double>();
    out << "]";
  }
  return out.str();
}

// A side's inputs, one a line, named by the schema.
std::string inputs(const runner::Side& side) {
  std::string text;
  if (!side.call) return text;
  for (size_t a = 0; a < side.call->args.size(); ++a) {
    text += "\n    ";
    if (side.call->op) text += side.call->op->schema().arguments().at(a).name() + ": ";
    text += show(side.call->args[a]);
  }
  return text;
}

}  // namespace

std::vector<std::string> effective_targets(const std::vector<std::string>& defaults) {
  const char* env = std::getenv("OPSFUZZ_TEST_TARGETS");
  return env && *env ? split(env, ';') : defaults;
}

CacheStats cache_stats() { return stats(); }

size_t SpecDBTests::register_tests() {
  TestOptions o = resolved(options_);
  Config cfg = Config::parse(config_);  // a bad word throws here, at registration
  Validity validity = invalid_ ? Validity::Invalid : Validity::Valid;
  const char* kind = invalid_ ? "invalid" : "valid";
  std::vector<const Spec*> specs;
  for (const std::string& glob : split(globs_, ','))
    for (const Spec* s : specs_matching(glob))
      if (std::find(specs.begin(), specs.end(), s) == specs.end()) specs.push_back(s);
  if (specs.empty()) throw std::invalid_argument("SpecDBTests: no spec matches '" + globs_ + "'");
  size_t n = 0;
  for (const Spec* spec : specs) {
    auto fixture = std::make_shared<Fixture>([spec, cfg, seed = seed_, validity, count = count_, config = config_] {
      Fixture::Built built;
      ArgumentTupleGenerator gen(*spec, cfg, seed, validity);
      Sample s;
      while (built.items.size() < count && gen.next(s)) built.items.push_back(runner::item_from_sample(s, config));
      built.ended = gen.why_ended();
      return built;
    });
    std::vector<ItemName> names;
    // "valid_0007"; with a seed or config other than the defaults, "valid_seed5_strided_0007".
    std::string prefix = std::string(kind) + (seed_ ? "_seed" + std::to_string(seed_) : "") +
                         (config_.empty() ? "" : "_" + identifier(config_));
    for (size_t k = 0; k < count_; ++k) {
      char index[32];
      std::snprintf(index, sizeof index, "_%04zu", k);
      names.push_back({"SpecDB/" + identifier(spec->op()), prefix + index,
                       spec->op() + " " + kind + " sample " + std::to_string(k) + " (seed " + std::to_string(seed_) +
                           (config_.empty() ? "" : ", config " + config_) + ")"});
    }
    auto reproduce = [&, op = spec->op()](size_t k, const std::string& target) {
      std::string cmd = "ops-fuzz run --ops " + shell_quote(op) + " --seed " + std::to_string(seed_) + " --max " +
                        std::to_string(k + 1) + (invalid_ ? " --invalid" : "") +
                        (config_.empty() ? "" : " --config " + shell_quote(config_)) + " --backends " +
                        shell_quote(target);
      if (!o.baseline.empty() && o.baseline != target) cmd += " --baseline " + shell_quote(o.baseline);
      return cmd + "  (the last item)";
    };
    n += register_cases(o, fixture, names, reproduce);
  }
  return n;
}

size_t YamlTests::register_tests() {
  TestOptions o = resolved(options_);
  auto suite = std::make_shared<suite::Suite>(suite::load_suite(path_));  // throws naming every error
  std::string patterns;
  for (const std::string& p : ids_) patterns += (patterns.empty() ? "" : ";") + p;
  suite::IdFilter filter(patterns);
  std::vector<std::string> ids;  // items_from_suite's, in its order
  for (const runner::SuiteItem& item : runner::suite_items(*suite, filter)) ids.push_back(item.id);
  auto fixture = std::make_shared<Fixture>([suite, path = path_, filter, seed = seed_] {
    return Fixture::Built{runner::items_from_suite(*suite, path, filter, seed), ""};
  });
  std::string stem = identifier(std::filesystem::path(path_).stem().string());
  std::vector<ItemName> names;
  std::set<std::string> seen;
  for (const std::string& id : ids) {
    std::string name = identifier(id);
    if (!seen.insert(name).second)
      throw std::invalid_argument(path_ + ": test ids '" + id + "' and another read the same as a test name");
    names.push_back({"Yaml/" + stem, name, path_ + ": " + id});
  }
  auto reproduce = [&](size_t k, const std::string& target) {
    std::string cmd = "ops-fuzz run " + shell_quote(path_) + " --test-ids " + shell_quote(ids[k]) + " --seed " +
                      std::to_string(seed_) + " --backends " + shell_quote(target);
    if (!o.baseline.empty() && o.baseline != target) cmd += " --baseline " + shell_quote(o.baseline);
    return cmd;
  };
  return register_cases(o, fixture, names, reproduce);
}

std::optional<std::string> compare_with_baseline(const runner::Item& item, const std::string& target,
                                                 const std::string& baseline, bool isolate) {
  runner::RunOptions options;
  options.backends = {target};
  if (baseline != target) options.baseline = baseline;
  options.isolate = isolate;
  std::vector<runner::Item> items{item};
  std::vector<runner::ItemResult> results = runner::run_items(items, options);
  const runner::ItemResult& r = results.at(0);
  const runner::BackendResult& mine = r.backends.at(0);
  std::string why = runner::failure_reason(r, mine);
  if (why.empty()) return std::nullopt;
  std::ostringstream out;
  out << item.id << " on " << target << (options.baseline.empty() ? "" : " against " + baseline) << ": " << why;
  auto statuses = [&](const runner::BackendResult& b) {
    out << "\n  " << b.backend << ":";
    for (const runner::SideResult& s : b.res)
      out << " " << runner::name(s.status) << (s.err.empty() ? "" : " (" + s.err + ")");
  };
  if (r.baseline) statuses(*r.baseline);
  statuses(mine);
  if (mine.diff)
    for (size_t i = 0; i < mine.diff->size(); ++i) {
      const runner::Diff& d = (*mine.diff)[i];
      out << "\n  distances" << (mine.diff->size() > 1 ? " side " + std::to_string(i) : "") << ": max_abs " << d.max_abs
          << ", mean_abs " << d.mean_abs << ", mse " << d.mse << ", ulp " << d.ulp;
    }
  for (const runner::Side& side : item.sides) out << "\n  inputs of " << side.op << ":" << inputs(side);
  return out.str();
}

}  // namespace opsfuzz::gtest
