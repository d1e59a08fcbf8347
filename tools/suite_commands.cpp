// validate-yaml, list-tests, run-eager, check: the YAML suite commands.
#include <iterator>
#include <optional>

#include "opcall/opcall.h"
#include "runner/run.h"
#include "suite/selection.h"
#include "suite/suite.h"
#include "tools/check.h"
#include "tools/commands.h"

namespace opsfuzz {

suite::Suite valid_suite(const std::string& path) {
  suite::LoadResult loaded = suite::read_suite(path);
  if (loaded.diagnostics.has_errors())
    throw std::runtime_error(path + ": the suite is not valid\n" + loaded.diagnostics.str());
  return std::move(loaded.suite);
}

namespace {

// Loads the suite, printing its errors and warnings; nullopt when it is invalid.
std::optional<suite::Suite> load(const std::string& file, std::ostream& err) {
  suite::LoadResult r = suite::read_suite(file);
  err << r.diagnostics.str();
  if (r.diagnostics.has_errors()) {
    size_t n = r.diagnostics.error_count();
    err << n << " error" << (n == 1 ? "" : "s") << " in " << file << "\n";
    return std::nullopt;
  }
  return std::move(r.suite);
}

}  // namespace

int validate_yaml(const SuiteCommand& o, std::ostream& out, std::ostream& err) {
  auto s = load(o.file, err);
  if (!s) return 1;
  for (const auto& w : suite::reference_warnings(*s)) err << w << "\n";
  out << o.file << ": valid, " << s->tests.size() << " tests (" << s->pairs.size() << " pairs)\n";
  return 0;
}

int list_tests(const SuiteCommand& o, std::ostream& out, std::ostream& err) {
  auto s = load(o.file, err);
  if (!s) return 1;
  for (const auto& line : suite::listing(*s, suite::IdFilter(o.test_ids))) out << line << "\n";
  return 0;
}

// Each selected test on eager_cpu through the runner, in isolated workers: a crashing kernel
// costs its test, and the run goes on. One line a test: "ok ID", "error ID: message" or
// "skipped ID: reason".
int run_eager(const SuiteCommand& o, std::ostream& out, std::ostream& err) {
  auto s = load(o.file, err);
  if (!s) return 1;
  suite::IdFilter filter(o.test_ids);
  auto items = runner::items_from_suite(*s, o.file, filter, o.seed);
  runner::RunOptions options;
  options.backends = {"eager_cpu"};
  size_t ok = 0, errors = 0, skipped = 0;
  runner::run_items(items, options, [&](const runner::ItemResult& r) {
    for (size_t k = 0; k < r.item->sides.size(); ++k) {
      const runner::Side& side = r.item->sides[k];
      if (!filter.matches(side.id) && !filter.matches(r.item->id)) continue;  // a pair's other side
      const runner::SideResult& res = r.backends[0].res[k];
      const char* word = res.status == runner::Status::Ok        ? (++ok, "ok")
                         : res.status == runner::Status::Skipped ? (++skipped, "skipped")
                                                                 : (++errors, "error");
      out << word << " " << side.id << (res.err.empty() ? "" : ": " + res.err) << "\n" << std::flush;
    }
  });
  out << ok << " ok, " << errors << " errors, " << skipped << " skipped\n";
  return errors > 0 ? 1 : 0;
}

int check_suite(const CheckCommand& o, std::ostream& out, std::ostream& err) {
  auto s = load(o.suite.file, err);
  if (!s) return 1;
  Config cfg = Config::parse(o.config);
  suite::IdFilter filter(o.suite.test_ids);
  const char* names[] = {"valid", "invalid", "undecided", "without a spec", "errors"};
  size_t counts[std::size(names)] = {};
  for (const auto& test : s->tests) {
    if (!suite::selected(test, filter)) continue;
    TestCheck check = check_test(test, o.suite.seed, cfg);
    ++counts[check.status];
    out << format(check) << "\n";
  }
  for (size_t k = 0; k < std::size(names); ++k) out << (k ? ", " : "") << counts[k] << " " << names[k];
  out << "\n";
  bool all_valid = counts[TestCheck::Invalid] + counts[TestCheck::Undecided] + counts[TestCheck::Error] == 0;
  return o.expect_valid && !all_valid ? 1 : 0;
}

}  // namespace opsfuzz
