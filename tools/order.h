// The order a hunt, a run or prioritize puts SpecDB samples in (--order):
//   given      op by op, each op's configurations in turn, each configuration's samples in index order
//   diversity  OPERA's diversity-first order (generators/diversity_order.h) over every sample of the
//              selection, the candidates of one op pooled over its configurations; each op weighed by
//              its existing tests (--existing: 1 / (1 + tests), so ops a suite tests little come first)
//   random     a shuffle drawn from --order-seed (the baseline the diversity order is measured against)
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "argtypes/meta_arg.h"
#include "generators/diversity_order.h"

namespace CLI {
class App;
}

namespace opsfuzz {

struct Sample;
class Spec;
namespace suite {
struct Test;
}

struct OrderOptions {
  explicit OrderOptions(std::string order = "given") : order(std::move(order)) {}
  std::string order;                  // given, diversity or random
  uint64_t seed = 0;                  // of the random order
  std::vector<std::string> existing;  // suites or op lists counting the tests each op already has
  bool given() const { return order == "given"; }
};

// --order, --order-seed and --existing, `order` its default.
void add_order_options(CLI::App* cmd, OrderOptions& o, const std::string& order);

// The tests each op already has, by name as written ("add", "add.Tensor"; "aten::" dropped): each
// test of a YAML suite (.yaml, .yml) counts for its op, and a list file's lines read `OP [COUNT]`
// ('#' starts a comment). Throws with the file and line of what it cannot read.
std::map<std::string, int64_t> existing_tests(const std::vector<std::string>& files);

// Candidates collected sample by sample, then put in order.
class CandidatePool {
 public:
  // A sample of `spec` generated under the configuration `words` (--config words, "" for the
  // default one). Its diversity keys are its arguments' classes and one more argument's: how it
  // was generated — its configuration's words, and for an invalid sample the rule it breaks —
  // since the classes of its arguments see neither values nor layouts (generators/diversity.h),
  // and those are what a configuration changes.
  void add(const Spec& spec, const Sample& s, const std::string& words);
  // A candidate of `spec` by its arguments' metas (a suite's test, observed), `generation` the
  // class of how it was made.
  void add(const Spec& spec, std::span<const MetaArg> metas, const std::string& generation);
  // A suite's test: its inputs made as `run` makes them (`seed`) and read back as the metas of its
  // op's spec (generators/classify.h). False, and nothing added, when no spec reads them (a module,
  // an op without a spec, inputs that cannot be made or bound).
  bool add(const suite::Test& test, uint64_t seed);
  size_t size() const { return candidates_.size(); }
  size_t ops() const { return specs_.size(); }
  // The candidates' indexes in the order `o` asks for, each with its score when chosen (diversity:
  // its op's weight times the share of its classes not yet covered; 0 in the other orders).
  std::vector<Ordered> order(const OrderOptions& o) const;

 private:
  std::vector<OrderCandidate> candidates_;
  std::map<const Spec*, uint32_t> op_of_;
  std::vector<const Spec*> specs_;  // by op index
};

}  // namespace opsfuzz
