// The report as one HTML page: inline CSS and SVG, no script, nothing fetched, so that it opens
// from a file on a machine without a network.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/report.h"
#include "report/text.h"

namespace opsfuzz::report {

namespace {

const char* colour(Outcome o) {
  switch (o) {
    case Outcome::Ok: return "#43a047";
    case Outcome::Explained: return "#a5d6a7";
    case Outcome::Mismatch: return "#fb8c00";
    case Outcome::Exception: return "#8e24aa";
    case Outcome::Crash: return "#e53935";
    case Outcome::Skipped: return "#cfd8dc";
  }
  return "#000";
}

const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #212121; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f5f5f5; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.cell { min-width: 72px; height: 18px; padding: 0; }
pre { background: #fafafa; border: 1px solid #eee; padding: 6px; max-width: 900px; overflow-x: auto; user-select: all; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -1px; }
.known { color: #757575; } svg { background: #fff; } svg text { font: 11px system-ui, sans-serif; }
)";

std::string legend() {
  std::string out = "<p class=\"legend\">";
  for (Outcome o : kOutcomes)
    out += std::string("<span><i style=\"background:") + colour(o) + "\"></i>" + name(o) + "</span>";
  return out + "</p>\n";
}

// Counts as a tooltip: "ok 18, mismatch 2 of 20".
std::string counts_title(const Counts& c) {
  std::string out;
  for (Outcome o : kOutcomes)
    if (c[o]) out += (out.empty() ? "" : ", ") + std::string(name(o)) + " " + std::to_string(c[o]);
  return out + " of " + std::to_string(c.total());
}

// A cell coloured by the shares of its outcomes, left to right in kOutcomes' order.
std::string share_cell(const Counts& c) {
  if (c.total() == 0) return "<td class=\"cell\"></td>";
  std::string stops;
  double from = 0;
  for (Outcome o : kOutcomes) {
    if (!c[o]) continue;
    const double to = from + 100.0 * static_cast<double>(c[o]) / static_cast<double>(c.total());
    stops += std::string(stops.empty() ? "" : ",") + colour(o) + " " + fixed(from, 2) + "% " + fixed(to, 2) + "%";
    from = to;
  }
  return "<td class=\"cell\" title=\"" + escape(counts_title(c)) + "\" style=\"background:linear-gradient(to right," +
         stops + ")\"></td>";
}

void summary(const Report& r, std::ostringstream& out) {
  const auto fresh =
      std::count_if(r.findings.begin(), r.findings.end(), [](const ReportFinding& f) { return !f.finding.known; });
  out << "<h2>Summary</h2>\n<table>\n"
      << "<tr><th>items</th><td class=\"n\">" << r.items << "</td></tr>\n"
      << "<tr><th>baseline</th><td>" << escape(r.baseline) << "</td></tr>\n"
      << "<tr><th>backends</th><td>" << escape(join(r.backends, ", ")) << "</td></tr>\n"
      << "<tr><th>findings</th><td>" << r.findings.size() << " (" << fresh << " new, " << r.findings.size() - fresh
      << " known)</td></tr>\n"
      << "<tr><th>set aside by triage</th><td>" << escape(set_aside_text(r.set_aside)) << "</td></tr>\n</table>\n";
  std::vector<std::string> statuses;
  for (const auto& [backend, counts] : r.statuses)
    for (const auto& [status, n] : counts)
      if (std::find(statuses.begin(), statuses.end(), status) == statuses.end()) statuses.push_back(status);
  out << "<table>\n<tr><th>backend (sides)</th>";
  for (const std::string& s : statuses) out << "<th>" << escape(s) << "</th>";
  out << "</tr>\n";
  for (const std::string& backend : r.backends) {
    out << "<tr><td>" << escape(backend) << "</td>";
    const auto it = r.statuses.find(backend);
    for (const std::string& s : statuses) {
      uint64_t n = 0;
      if (it != r.statuses.end())
        if (auto c = it->second.find(s); c != it->second.end()) n = c->second;
      out << "<td class=\"n\">" << n << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void findings_table(const Report& r, std::ostringstream& out) {
  out << "<h2>Findings</h2>\n";
  if (r.findings.empty()) {
    out << "<p>No findings.</p>\n";
    return;
  }
  out << "<table>\n<tr><th>finding</th><th>op</th><th>backend</th><th>kind</th><th>blame</th><th>count</th>"
         "<th>first seen (item)</th><th>configs</th><th>dtypes</th><th>known</th><th>reproducer</th></tr>\n";
  for (const ReportFinding& rf : r.findings) {
    const hunt::Finding& f = rf.finding;
    out << "<tr class=\"finding" << (f.known ? " known" : "") << "\" id=\"" << escape(f.id) << "\">"
        << "<td>" << escape(f.id) << "<br><small>" << escape(f.message) << "</small></td>"
        << "<td title=\"" << escape(join(f.ops, ", ")) << "\">" << escape(ops_text(f)) << "</td><td>"
        << escape(f.backend) << "</td><td>" << hunt::name(f.kind) << "</td><td>"
        << escape(f.blame.empty() ? "-" : f.blame) << "</td><td class=\"n\">" << f.count << "</td><td class=\"n\">"
        << f.first + 1 << "</td><td>" << escape(join(f.configs, ", ")) << "</td><td>" << escape(join(f.dtypes, ", "))
        << "</td><td>" << escape(f.known ? *f.known : "-") << "</td><td>";
    if (!rf.yaml.empty() || !rf.py.empty()) {
      const Reproduction& made = rf.reproduction;
      out << "<details><summary>" << (made.yaml_reproduces ? "reproduces" : "does not reproduce on demand") << ", "
          << made.elements_before << " &rarr; " << made.elements_after << " elements</summary>";
      if (!rf.yaml.empty()) out << "<p>YAML (ops-fuzz run)</p><pre>" << escape(rf.yaml) << "</pre>";
      if (!rf.py.empty()) out << "<p>Python</p><pre>" << escape(rf.py) << "</pre>";
      out << "</details>";
    } else {
      out << escape(rf.reproduction.why_not.empty() ? "-" : rf.reproduction.why_not);
    }
    out << "</td></tr>\n";
  }
  out << "</table>\n";
}

void matrix(const Report& r, std::ostringstream& out) {
  out << "<h2>Support matrix</h2>\n<p>Each op's items on each backend, coloured by the share of each outcome "
         "(hover for counts).</p>\n"
      << legend() << "<table>\n<tr><th>op</th>";
  for (const std::string& b : r.backends) out << "<th>" << escape(b) << "</th>";
  out << "</tr>\n";
  for (const auto& [op, cells] : r.matrix) {
    out << "<tr class=\"op-row\"><td>" << escape(op) << "</td>";
    for (const std::string& b : r.backends) {
      const auto it = cells.find(b);
      out << share_cell(it == cells.end() ? Counts{} : it->second);
    }
    out << "</tr>\n";
  }
  out << "</table>\n<details><summary>Per dtype (the first tensor input's)</summary>\n<table>\n"
         "<tr><th>op</th><th>dtype</th>";
  for (const std::string& b : r.backends) out << "<th>" << escape(b) << "</th>";
  out << "</tr>\n";
  for (const auto& [key, cells] : r.by_dtype) {
    out << "<tr class=\"dtype-row\"><td>" << escape(key.first) << "</td><td>" << escape(key.second) << "</td>";
    for (const std::string& b : r.backends) {
      const auto it = cells.find(b);
      out << "<td>" << escape(it == cells.end() ? "" : counts_title(it->second)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n</details>\n";
}

const char* kLineColours[] = {"#1e88e5", "#e53935", "#43a047", "#fb8c00", "#8e24aa", "#00897b", "#6d4c41"};

// A plot area: x and y from data ranges to pixels, with axes and labels.
struct Plot {
  double x0, x1, y0, y1;  // data ranges
  bool log_x = false;
  static constexpr double kW = 640, kH = 300, kLeft = 56, kRight = 16, kTop = 12, kBottom = 40;
  double px(double x) const {
    const double t =
        log_x ? (std::log10(x) - std::log10(x0)) / (std::log10(x1) - std::log10(x0)) : (x - x0) / (x1 - x0);
    return kLeft + t * (kW - kLeft - kRight);
  }
  double py(double y) const { return kH - kBottom - (y - y0) / (y1 - y0) * (kH - kTop - kBottom); }
  std::string axes(const std::string& xlabel, const std::string& ylabel) const {
    std::ostringstream s;
    s << "<line x1=\"" << kLeft << "\" y1=\"" << py(y0) << "\" x2=\"" << kW - kRight << "\" y2=\"" << py(y0)
      << "\" stroke=\"#757575\"/><line x1=\"" << kLeft << "\" y1=\"" << py(y0) << "\" x2=\"" << kLeft << "\" y2=\""
      << kTop << "\" stroke=\"#757575\"/>";
    for (int k = 0; k <= 4; ++k) {
      const double x = log_x ? x0 * std::pow(x1 / x0, k / 4.0) : x0 + (x1 - x0) * k / 4.0;
      const double y = y0 + (y1 - y0) * k / 4.0;
      s << "<text x=\"" << px(x) << "\" y=\"" << py(y0) + 14 << "\" text-anchor=\"middle\">" << short_number(x)
        << "</text><text x=\"" << kLeft - 4 << "\" y=\"" << py(y) + 4 << "\" text-anchor=\"end\">" << short_number(y)
        << "</text>";
    }
    s << "<text x=\"" << (kLeft + kW - kRight) / 2 << "\" y=\"" << kH - 6 << "\" text-anchor=\"middle\">"
      << escape(xlabel) << "</text><text x=\"12\" y=\"" << (kTop + kH - kBottom) / 2 << "\" transform=\"rotate(-90 12 "
      << (kTop + kH - kBottom) / 2 << ")\" text-anchor=\"middle\">" << escape(ylabel) << "</text>";
    return s.str();
  }
};

std::string svg_open() {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fixed(Plot::kW, 0) + "\" height=\"" +
         fixed(Plot::kH, 0) + "\" viewBox=\"0 0 " + fixed(Plot::kW, 0) + " " + fixed(Plot::kH, 0) + "\">";
}

std::string line_legend(const std::vector<std::string>& labels) {
  std::string out = "<p class=\"legend\">";
  for (size_t k = 0; k < labels.size(); ++k)
    out += std::string("<span><i style=\"background:") + kLineColours[k % std::size(kLineColours)] + "\"></i>" +
           escape(labels[k]) + "</span>";
  return out + "</p>\n";
}

void findings_over_time(const Report& r, std::ostringstream& out) {
  out << "<h2>Findings over time</h2>\n<p>Distinct findings against items executed: the earlier the curve "
         "rises, the earlier its order reaches what it finds (APFD).</p>\n";
  uint64_t items = 1, most = 1;
  for (const Curve& c : r.curves) items = std::max(items, c.items), most = std::max<uint64_t>(most, c.firsts.size());
  Plot plot{0, static_cast<double>(items), 0, static_cast<double>(most)};
  out << svg_open() << plot.axes("items executed", "distinct findings");
  std::vector<std::string> labels;
  for (size_t k = 0; k < r.curves.size(); ++k) {
    const Curve& c = r.curves[k];
    std::ostringstream points;
    points << plot.px(0) << "," << plot.py(0);
    for (size_t i = 0; i < c.firsts.size(); ++i)
      points << " " << plot.px(static_cast<double>(c.firsts[i] + 1)) << "," << plot.py(static_cast<double>(i)) << " "
             << plot.px(static_cast<double>(c.firsts[i] + 1)) << "," << plot.py(static_cast<double>(i + 1));
    points << " " << plot.px(static_cast<double>(c.items)) << "," << plot.py(static_cast<double>(c.firsts.size()));
    out << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << kLineColours[k % std::size(kLineColours)]
        << "\" points=\"" << points.str() << "\"><title>" << escape(c.label) << "</title></polyline>";
    labels.push_back(c.label + ": " + apfd_text(c));
  }
  out << "</svg>\n" << line_legend(labels);
}

void latency(const Report& r, std::ostringstream& out) {
  out << "<h2>Latency against the baseline</h2>\n";
  if (r.latency_ratios.empty()) {
    out << "<p>No timings in these results: <code>ops-fuzz run --mode 2</code> times every repeat.</p>\n";
    return;
  }
  double lo = 1, hi = 1;
  for (const auto& [backend, ratios] : r.latency_ratios)
    if (!ratios.empty()) lo = std::min(lo, ratios.front()), hi = std::max(hi, ratios.back());
  lo = std::pow(10, std::floor(std::log10(std::max(lo, 1e-6)))), hi = std::pow(10, std::ceil(std::log10(hi)));
  if (hi <= lo) hi = lo * 10;
  Plot plot{lo, hi, 0, 1, true};
  out << "<p>The distribution of each backend's time over the baseline's, per item (median of the repeats).</p>\n"
      << svg_open() << plot.axes("time / baseline time (log)", "share of items");
  std::vector<std::string> labels;
  size_t k = 0;
  for (const auto& [backend, ratios] : r.latency_ratios) {
    std::ostringstream points;
    for (size_t i = 0; i < ratios.size(); ++i)
      points << (i ? " " : "") << plot.px(std::max(ratios[i], lo)) << ","
             << plot.py(static_cast<double>(i + 1) / static_cast<double>(ratios.size()));
    out << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << kLineColours[k % std::size(kLineColours)]
        << "\" points=\"" << points.str() << "\"><title>" << escape(backend) << "</title></polyline>";
    labels.push_back(backend + ": median " + short_number(ratios[ratios.size() / 2]) + "x");
    ++k;
  }
  out << "</svg>\n" << line_legend(labels);
}

}  // namespace

std::string html(const Report& r) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>opsfuzz report: "
      << escape(r.source) << "</title>\n<style>" << kStyle
      << "</style>\n</head>\n<body>\n<h1>opsfuzz report: " << escape(r.source) << "</h1>\n";
  summary(r, out);
  findings_over_time(r, out);
  latency(r, out);
  findings_table(r, out);
  matrix(r, out);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace opsfuzz::report
