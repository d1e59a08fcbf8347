#include "suite/cli.h"

#include <charconv>
#include <filesystem>
#include <optional>

#include "opcall/opcall.h"
#include "suite/modules.h"
#include "suite/runner.h"
#include "suite/suite.h"

namespace opsfuzz::suite {

namespace {

const char* kValidateUsage =
    "ops-fuzz validate-yaml FILE\n"
    "  Checks a YAML test suite (with its includes). Prints a one-line summary and exits 0 if it\n"
    "  is valid; prints every error (file:line:column, test, path, message) and exits 1 if not.\n";
const char* kListUsage =
    "ops-fuzz list-tests FILE [--test-ids 'PAT1;PAT2']\n"
    "  Prints the expanded test ids, one per line; a pair test as its id followed by its __a and\n"
    "  __b ids indented by two spaces. A pattern ending in '*' matches ids by prefix.\n";
const char* kRunUsage =
    "ops-fuzz run-eager FILE [--test-ids 'PAT1;PAT2'] [--seed N]\n"
    "  Materializes each selected test and runs it on CPU, printing one line per test:\n"
    "  'ok ID', 'error ID: message' or 'skipped ID: reason'. Exits 1 if any test errors.\n";

struct Options {
  std::string file;
  std::string test_ids;
  uint64_t seed = 0;
  bool help = false;
};

// Parses FILE [--test-ids P] [--seed N] [--help]; returns an error message on bad usage.
std::optional<std::string> parse(const std::vector<std::string>& args, bool takes_ids,
                                 bool takes_seed, Options& o) {
  for (size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    auto value = [&]() -> std::optional<std::string> {
      if (size_t eq = a.find('='); eq != std::string::npos) return a.substr(eq + 1);
      if (k + 1 < args.size()) return args[++k];
      return std::nullopt;
    };
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (takes_ids && a.starts_with("--test-ids")) {
      auto v = value();
      if (!v) return "--test-ids needs a value";
      o.test_ids = *v;
    } else if (takes_seed && a.starts_with("--seed")) {
      auto v = value();
      auto res =
          v ? std::from_chars(v->data(), v->data() + v->size(), o.seed) : std::from_chars_result{};
      if (!v || res.ec != std::errc() || res.ptr != v->data() + v->size())
        return "--seed needs an unsigned integer";
    } else if (a.starts_with("-")) {
      return "unknown option '" + a + "'";
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      return "unexpected argument '" + a + "'";
    }
  }
  if (o.file.empty() && !o.help) return "missing FILE";
  return std::nullopt;
}

// Loads the suite, printing errors; nullopt when it is invalid.
std::optional<Suite> load(const std::string& file, std::ostream& err) {
  LoadResult r = read_suite(file);
  err << r.diagnostics.str();
  if (r.diagnostics.has_errors()) {
    err << r.diagnostics.error_count() << " error" << (r.diagnostics.error_count() == 1 ? "" : "s")
        << " in " << file << "\n";
    return std::nullopt;
  }
  return std::move(r.suite);
}

// A module path that cannot be resolved here, checked with its construct arguments.
void check_module(const Node& n, const Test& test, std::vector<std::string>& warnings) {
  if (n.type != NodeType::Module && n.type != NodeType::Construct) return;
  bool found = is_registered_module(n.path);
  if (n.path.starts_with("file:")) {
    std::string file = n.path.substr(5);
    file = file.substr(0, file.find("::"));  // "file:m.pt::a.b" -> "m.pt"
    found = std::filesystem::exists(std::filesystem::path(test.directory) / file) ||
            std::filesystem::exists(file);
  }
  if (!found)
    warnings.push_back(n.pos.str() + ": warning: " + test.id + ": module '" + n.path +
                       "' is not available here");
  for (const auto& arg : n.args) check_module(arg, test, warnings);
  for (const auto& [name, arg] : n.kwargs) check_module(arg, test, warnings);
}

// Ops and modules are resolved when tests run; validation only warns about those it cannot find.
std::vector<std::string> reference_warnings(const Suite& suite) {
  std::vector<std::string> warnings;
  for (const auto& test : suite.tests) {
    if (test.module)
      check_module(*test.module, test, warnings);
    else if (!opcall::has_op(test.op))
      warnings.push_back(test.pos.str() + ": warning: " + test.id + ": unknown operator '" +
                         test.op + "'" + opcall::suggest_op(test.op));
  }
  return warnings;
}

int validate(const Options& o, std::ostream& out, std::ostream& err) {
  auto suite = load(o.file, err);
  if (!suite) return 1;
  for (const auto& w : reference_warnings(*suite)) err << w << "\n";
  out << o.file << ": valid, " << suite->tests.size() << " tests (" << suite->pairs.size()
      << " pairs)\n";
  return 0;
}

int list(const Options& o, std::ostream& out, std::ostream& err) {
  auto suite = load(o.file, err);
  if (!suite) return 1;
  IdFilter filter(o.test_ids);
  for (const auto& test : suite->tests) {
    if (!selected(test, filter)) continue;
    const PairTest* pair = suite->pair_of(test);
    if (!pair) {
      out << test.id << "\n";
    } else if (&suite->tests[pair->a] == &test || !selected(suite->tests[pair->a], filter)) {
      out << pair->id << "\n";  // the pair is printed once, at its first selected side
      for (size_t side : {pair->a, pair->b})
        if (selected(suite->tests[side], filter)) out << "  " << suite->tests[side].id << "\n";
    }
  }
  return 0;
}

int run(const Options& o, std::ostream& out, std::ostream& err) {
  auto suite = load(o.file, err);
  if (!suite) return 1;
  RunOptions options{o.seed, IdFilter(o.test_ids)};
  opcall::set_backtraces(false);  // messages drop them anyway; each would cost ~6 ms
  size_t counts[3] = {0, 0, 0};
  run_eager(*suite, options, [&](const TestOutcome& outcome) {
    ++counts[static_cast<int>(outcome.status)];
    out << format(outcome) << "\n";
    out.flush();
  });
  out << counts[0] << " ok, " << counts[1] << " errors, " << counts[2] << " skipped\n";
  return counts[1] > 0 ? 1 : 0;
}

}  // namespace

bool is_cli_command(const std::string& command) {
  return command == "validate-yaml" || command == "list-tests" || command == "run-eager";
}

std::string cli_usage() { return std::string(kValidateUsage) + kListUsage + kRunUsage; }

int run_cli(const std::string& command, const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  if (!is_cli_command(command)) {
    err << "unknown command '" << command << "'\n" << cli_usage();
    return 2;
  }
  bool is_validate = command == "validate-yaml", is_list = command == "list-tests";
  const char* usage = is_validate ? kValidateUsage : is_list ? kListUsage : kRunUsage;
  Options o;
  if (auto problem = parse(args, !is_validate, command == "run-eager", o)) {
    err << command << ": " << *problem << "\n" << usage;
    return 2;
  }
  if (o.help) {
    out << usage;
    return 0;
  }
  if (is_validate) return validate(o, out, err);
  if (is_list) return list(o, out, err);
  return run(o, out, err);
}

}  // namespace opsfuzz::suite
