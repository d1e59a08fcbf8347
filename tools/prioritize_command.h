// ops-fuzz prioritize: the order (tools/order.h; diversity unless told) of the SpecDB samples a hunt
// with the same options would run, or of a YAML suite's tests, printed without running anything:
// each item id with its score when chosen, the candidates of one op pooled over its configurations.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "tools/hunt_command.h"
#include "tools/order.h"

namespace CLI {
class App;
}

namespace opsfuzz {

struct PrioritizeCommand {
  std::vector<std::string> suites;  // YAML suites whose tests to order
  OpSelection selection;            // every spec when nothing (and no suite) is named
  std::string configs = HuntCommand{}.configs;
  bool invalid = true;
  int64_t max = 20;
  uint64_t seed = 0;
  OrderOptions order{"diversity"};
};

// Prints "rank score item" lines, then (to err) how long generating and ordering took.
int print_priorities(const PrioritizeCommand& o, std::ostream& out, std::ostream& err);

std::shared_ptr<void> add_prioritize_command(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                             std::ostream& err);

}  // namespace opsfuzz
