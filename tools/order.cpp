#include "tools/order.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <functional>
#include <sstream>

#include "argtypes/rng.h"
#include "generators/classify.h"
#include "generators/diversity.h"
#include "generators/generators.h"
#include "specs/model/spec.h"
#include "suite/suite.h"
#include "tools/check.h"
#include "tools/commands.h"

namespace opsfuzz {

namespace {

std::string without_namespace(const std::string& op) { return op.rfind("aten::", 0) == 0 ? op.substr(6) : op; }

void count_suite(const std::string& path, std::map<std::string, int64_t>& counts) {
  suite::LoadResult loaded = suite::read_suite(path);
  if (loaded.diagnostics.has_errors())
    throw UsageError("--existing " + path + ": the suite is not valid\n" + loaded.diagnostics.str());
  for (const suite::Test& t : loaded.suite.tests)
    if (!t.op.empty()) ++counts[without_namespace(t.op)];
}

void count_list(const std::string& path, std::map<std::string, int64_t>& counts) {
  std::ifstream in(path);
  if (!in) throw UsageError("--existing " + path + ": cannot read the file");
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    std::istringstream words(line.substr(0, line.find('#')));
    std::string op, extra;
    int64_t count = 1;
    if (!(words >> op)) continue;
    if ((words >> std::ws).peek() != EOF && (!(words >> count) || count < 0 || (words >> extra)))
      throw UsageError("--existing " + path + ":" + std::to_string(line_number) + ": expected `OP [COUNT]`, not '" +
                       line + "'");
    counts[without_namespace(op)] += count;
  }
}

bool is_suite(const std::string& path) { return path.ends_with(".yaml") || path.ends_with(".yml"); }

}  // namespace

void add_order_options(CLI::App* cmd, OrderOptions& o, const std::string& order) {
  o.order = order;
  cmd->add_option("--order", o.order,
                  "the order of the SpecDB samples: diversity (OPERA's: each op's samples that cover argument "
                  "classes not yet covered first), random (shuffled by --order-seed) or given (op by op)")
      ->check(CLI::IsMember({"diversity", "random", "given"}))
      ->capture_default_str();
  cmd->add_option("--order-seed", o.seed, "seed of --order random")->capture_default_str();
  cmd->add_option("--existing", o.existing,
                  "the tests each op already has, as YAML suites or lists of `OP [COUNT]` lines: --order diversity "
                  "puts ops with few first")
      ->check(CLI::ExistingFile);
}

std::map<std::string, int64_t> existing_tests(const std::vector<std::string>& files) {
  std::map<std::string, int64_t> counts;
  for (const std::string& path : files) is_suite(path) ? count_suite(path, counts) : count_list(path, counts);
  return counts;
}

void CandidatePool::add(const Spec& spec, const Sample& s, const std::string& words) {
  add(spec, s.metas, words + (s.valid ? "" : "\ninvalid: " + s.violated));
}

void CandidatePool::add(const Spec& spec, std::span<const MetaArg> metas, const std::string& generation) {
  const auto [it, fresh] = op_of_.try_emplace(&spec, static_cast<uint32_t>(specs_.size()));
  if (fresh) specs_.push_back(&spec);
  const uint64_t generation_class = std::hash<std::string>{}(generation);
  candidates_.push_back({it->second, diversity_keys(metas, std::span(&generation_class, 1))});
}

bool CandidatePool::add(const suite::Test& test, uint64_t seed) {
  if (test.module) return false;
  try {
    const SpecInputs inputs = spec_inputs(test, seed);
    if (!inputs.spec) return false;
    std::vector<MetaArg> metas;
    for (size_t a = 0; a < inputs.values.size(); ++a)
      metas.push_back(observe(inputs.spec->args()[a], inputs.values[a]));
    add(*inputs.spec, metas, "suite");
    return true;
  } catch (const std::exception&) { return false; }  // c10::Error is one too
}

std::vector<Ordered> CandidatePool::order(const OrderOptions& o) const {
  std::vector<Ordered> out(candidates_.size());
  if (o.order == "diversity") {
    // An op's tests are counted under its overload ("add.Tensor") and its name ("add", as suites
    // name it): the weight falls with both.
    const std::map<std::string, int64_t> existing = existing_tests(o.existing);
    auto tests = [&](const std::string& name) {
      auto it = existing.find(name);
      return it == existing.end() ? 0 : it->second;
    };
    std::vector<double> weights;
    for (const Spec* spec : specs_) {
      const std::string& name = spec->op();
      weights.push_back(1.0 / static_cast<double>(1 + tests(name) + tests(name.substr(0, name.find('.')))));
    }
    return diversity_order(candidates_, weights);
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].index = i;
  if (o.order == "random") {
    Rng rng(derive_seed(o.seed, 0x6f72646572));  // "order"
    for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng.index(i)]);
  } else if (o.order != "given") {
    throw UsageError("--order: '" + o.order + "' is not diversity, random or given");
  }
  return out;
}

}  // namespace opsfuzz
