// The report's summary and findings table in Markdown, for a CI job's comment.
#include <algorithm>
#include <sstream>

#include "report/report.h"
#include "report/text.h"

namespace opsfuzz::report {

namespace {

// A table cell: no line breaks, no bare '|'.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace

std::string markdown(const Report& r) {
  std::ostringstream out;
  const auto fresh =
      std::count_if(r.findings.begin(), r.findings.end(), [](const ReportFinding& f) { return !f.finding.known; });
  out << "## opsfuzz report: " << cell(r.source) << "\n\n"
      << "- items: " << r.items << "\n- backends: " << cell(join(r.backends, ", ")) << " (baseline " << cell(r.baseline)
      << ")\n- findings: " << r.findings.size() << " (" << fresh << " new, " << r.findings.size() - fresh
      << " known)\n- set aside by triage: " << cell(set_aside_text(r.set_aside)) << "\n";
  for (const Curve& c : r.curves) out << "- " << cell(c.label) << ": " << apfd_text(c) << "\n";
  if (r.findings.empty()) return out.str();
  out << "\n| finding | op | backend | kind | blame | count | first seen | configs | dtypes | known | reproducer |\n"
         "|---|---|---|---|---|---:|---:|---|---|---|---|\n";
  for (const ReportFinding& rf : r.findings) {
    const hunt::Finding& f = rf.finding;
    const Reproduction& made = rf.reproduction;
    const std::string reproducer = made.yaml.empty()
                                       ? (made.why_not.empty() ? "-" : made.why_not)
                                       : made.yaml + (made.yaml_reproduces ? "" : " (does not reproduce)");
    out << "| " << cell(f.id) << " | " << cell(ops_text(f)) << " | " << cell(f.backend) << " | " << hunt::name(f.kind)
        << " | " << cell(f.blame.empty() ? "-" : f.blame) << " | " << f.count << " | " << f.first + 1 << " | "
        << cell(join(f.configs, ", ")) << " | " << cell(join(f.dtypes, ", ")) << " | " << cell(f.known ? *f.known : "-")
        << " | " << cell(reproducer) << " |\n";
  }
  return out.str();
}

}  // namespace opsfuzz::report
