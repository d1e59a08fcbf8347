// Sharding on existing engines (CTest, Kubernetes Indexed Jobs, Slurm job arrays): `run` and
// `sweep` take --shard I/N (tools/commands.h: Shard), and `merge` joins the shards' results into
// the file one unsharded run with the same arguments writes (up to record order and timings).
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace CLI {
class App;
}

namespace opsfuzz {

struct MergeCommand {
  std::string out;
  std::vector<std::string> inputs;  // run's JSONL files, or sweep --json reports (not both)
};

// Merges the inputs into `o.out`: run's JSONL (one meta record, then every input's item records)
// or a sweep report (every input's op rows). The inputs must agree on everything but the shard
// and timings, hold no item (op) twice and, when sharded, be every shard of one split once.
// Throws std::runtime_error naming the file (and line) at fault.
int merge_results(const MergeCommand& o, std::ostream& out, std::ostream& err);

// Adds --shard I/N to `cmd`; `unit` names what is split ("item", "op") in the help.
void add_shard_option(CLI::App* cmd, Shard& shard, const std::string& unit);

// Adds `merge` to the command line; the options live in the returned holder.
std::shared_ptr<void> add_merge_command(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                        std::ostream& err);

}  // namespace opsfuzz
