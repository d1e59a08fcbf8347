// ops-fuzz run and list-backends: YAML suites and SpecDB samples on backends, with opdiff's
// options, results as opdiff's JSONL.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "tools/commands.h"
#include "tools/order.h"

namespace CLI {
class App;
}
namespace opsfuzz::runner {
struct RunOptions;
}

namespace opsfuzz {

struct RunCommand {
  std::string file;  // a YAML suite; or SpecDB samples of `selection`
  OpSelection selection;
  bool invalid = false;
  std::string config;
  int64_t max = 10;    // samples per op
  int64_t index = -1;  // >= 0: only the sample with this index
  std::string backends = "eager_cpu";
  std::string baseline;
  std::string test_ids;  // semicolon-separated, '*' suffix a prefix
  std::string skips;     // 'id:backend;...'
  std::string out_path, junit;
  bool append = false, resume = false;
  int repeats = 1, mode = 1;
  int64_t sampled_inputs = 1;  // runs of each YAML test with its own inputs
  uint64_t seed = 0;
  double timeout_s = 60;
  unsigned jobs = 1;
  bool isolate = true, backtraces = false;
  Shard shard;         // item k of make_items' order runs in shard k % N
  OrderOptions order;  // of the SpecDB samples, after a suite's tests (in suite order)
};

// Run options for the backends of --backends (semicolon-separated) and --baseline ("" for none),
// each name checked: an unknown one throws, listing the registered ones.
runner::RunOptions backend_options(const std::string& backends, const std::string& baseline);

int run_items_command(const RunCommand& o, std::ostream& out, std::ostream& err);
int list_backends(std::ostream& out);

// Adds `run` and `list-backends` to the command line; the options live in the returned holder.
std::shared_ptr<void> add_run_commands(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                       std::ostream& err);

}  // namespace opsfuzz
