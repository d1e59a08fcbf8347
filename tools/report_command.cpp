#include "tools/report_command.h"

#include <CLI/CLI.hpp>

#include <fstream>

#include "report/report.h"
#include "tools/commands.h"

namespace opsfuzz {

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw std::runtime_error("report: cannot write " + path);
}

}  // namespace

int write_report(const ReportCommand& o, std::ostream& out) {
  if (o.html.empty() && o.md.empty()) throw UsageError("report: say where to write it: --html FILE, --md FILE");
  const report::Report r = report::read_report(o.source, o.compared);
  if (!o.html.empty()) write_file(o.html, report::html(r));
  if (!o.md.empty()) write_file(o.md, report::markdown(r));
  out << r.items << " items, " << r.findings.size() << " findings, " << r.matrix.size() << " ops: written to "
      << (o.html.empty() ? o.md
          : o.md.empty() ? o.html
                         : o.html + " and " + o.md)
      << "\n";
  return 0;
}

std::shared_ptr<void> add_report_command(CLI::App& app, std::function<int()>& command, std::ostream& out) {
  auto o = std::make_shared<ReportCommand>();
  auto* cmd = app.add_subcommand(
      "report",
      "what a hunt found as one self-contained HTML page (summary, findings with their reproducers, the op x "
      "backend support matrix, findings over time, latency against the baseline) and as Markdown (summary and "
      "findings, for CI comments)");
  cmd->add_option("DIR", o->source, "a hunt's output folder (--out), or a run's results file")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--html", o->html, "the HTML page to write");
  cmd->add_option("--md", o->md, "the Markdown to write");
  cmd->add_option("--compare", o->compared,
                  "other hunts' folders (the same selection in another --order): their findings over time overlay "
                  "this one's")
      ->check(CLI::ExistingPath);
  cmd->callback([&command, o, &out] { command = [o, &out] { return write_report(*o, out); }; });
  return o;
}

}  // namespace opsfuzz
