// ops-fuzz report DIR --html FILE [--md FILE] [--compare DIR...]: what a hunt found, as one
// self-contained HTML page and as Markdown (report/report.h).
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

struct ReportCommand {
  std::string source;                 // a hunt's folder, or a run's results file
  std::string html, md;               // where to write them; at least one
  std::vector<std::string> compared;  // other hunts whose findings-over-time curves overlay this one's
};

int write_report(const ReportCommand& o, std::ostream& out);

std::shared_ptr<void> add_report_command(CLI::App& app, std::function<int()>& command, std::ostream& out);

}  // namespace opsfuzz
