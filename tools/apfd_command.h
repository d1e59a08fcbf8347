// ops-fuzz apfd DIR...: how early a hunt's order reached its findings (hunt/apfd.h), from the
// hunt's output folder: the items in DIR/results.jsonl and each finding's first item in
// DIR/findings.jsonl; several hunts of one selection in different orders, compared.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace opsfuzz {

struct ApfdCommand {
  std::vector<std::string> dirs;     // hunts' --out folders: one, or several to compare
  std::vector<std::string> reorder;  // files of item ids: replay the one hunt's results in those orders
  uint64_t limit = 0;                // --items: the first N of the order (0: all)
  bool findings = false;             // also list each finding's first item, earliest first
};

// Prints the APFD; throws std::runtime_error naming the file (and line) it cannot read.
int print_apfd(const ApfdCommand& o, std::ostream& out);

std::shared_ptr<void> add_apfd_command(CLI::App& app, std::function<int()>& command, std::ostream& out);

}  // namespace opsfuzz
