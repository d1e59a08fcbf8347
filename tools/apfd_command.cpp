#include "tools/apfd_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hunt/apfd.h"
#include "report/report.h"
#include "runner/results.h"
#include "tools/commands.h"

namespace opsfuzz {

namespace {

using nlohmann::json;

struct Listed {
  uint64_t first;  // 0-based
  std::string id;
  std::string key;  // what makes it the same finding in another hunt: op, backend, kind and key
};

// The findings of a findings.jsonl, as listed; a line that is no finding is an error naming it.
std::vector<Listed> listed_findings(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string() + " (is the folder a hunt's --out?)");
  std::vector<Listed> out;
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    json f = json::parse(line, nullptr, false);
    if (f.is_discarded() || !f.is_object() || !f.contains("first") || !f["first"].is_number_unsigned())
      throw std::runtime_error(path.string() + ":" + std::to_string(number) +
                               ": not a finding with its first item ('first')");
    const std::string kind = f.value("kind", "");
    // An unsupported finding's op is whichever it met first: its key names no op (hunt/findings.h).
    const std::string op = kind == "unsupported" ? "" : f.value("op", "");
    out.push_back({f["first"].get<uint64_t>(), f.value("id", ""),
                   op + " | " + f.value("backend", "") + " | " + kind + " | " + f.value("key", "")});
  }
  return out;
}

struct Hunt {
  std::string dir, order;
  uint64_t items = 0;
  std::vector<Listed> findings;
};

Hunt read_hunt(const std::string& dir) {
  const std::filesystem::path results = std::filesystem::path(dir) / "results.jsonl";
  if (!std::filesystem::exists(results)) throw std::runtime_error("cannot read " + results.string());
  Hunt h{dir, report::order_of(results.string()), 0, listed_findings(std::filesystem::path(dir) / "findings.jsonl")};
  runner::for_each_item_record(results.string(), [&](const json&) { ++h.items; });
  return h;
}

std::string four(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", v);
  return text;
}

int print_one(const Hunt& h, bool list, std::ostream& out) {
  std::vector<uint64_t> positions;
  for (const Listed& f : h.findings) positions.push_back(f.first);
  out << hunt::apfd_line(positions, h.items) << "\n";
  if (list) {
    std::vector<Listed> sorted = h.findings;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Listed& a, const Listed& b) { return a.first < b.first; });
    out << "first item  finding\n";
    for (const Listed& f : sorted) out << f.first + 1 << "  " << f.id << "\n";
  }
  return 0;
}

// Several hunts of one selection in different orders, over the first n items all of them ran and
// the findings any of them reached there; a finding a hunt did not reach counts at item n + 1.
int print_compared(const std::vector<Hunt>& hunts, bool list, std::ostream& out) {
  uint64_t n = hunts.front().items;
  for (const Hunt& h : hunts) n = std::min(n, h.items);
  std::vector<std::string> keys;  // the union, in the order the first hunt (then the others) reached them
  std::map<std::string, std::string> id_of;
  std::vector<std::map<std::string, uint64_t>> firsts(hunts.size());  // 1-based, reached within n
  for (size_t k = 0; k < hunts.size(); ++k) {
    std::vector<Listed> sorted = hunts[k].findings;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Listed& a, const Listed& b) { return a.first < b.first; });
    for (const Listed& f : sorted)
      if (f.first < n) {
        firsts[k][f.key] = f.first + 1;
        if (id_of.emplace(f.key, f.id).second) keys.push_back(f.key);
      }
  }
  if (n == 0 || keys.empty()) {
    out << "nothing to compare: " << keys.size() << " findings over the first " << n << " items\n";
    return 0;
  }
  auto rank = [&](size_t k, const std::string& key) {
    auto it = firsts[k].find(key);
    return it == firsts[k].end() ? n + 1 : it->second;
  };
  const double m = static_cast<double>(keys.size()), items = static_cast<double>(n);
  std::map<std::string, std::vector<size_t>> by_order;  // the hunts of each order
  out << "over the first " << n << " items every hunt ran, the " << keys.size()
      << " findings any of them reached there (one not reached counts at item " << n + 1 << "):\n";
  std::vector<double> apfds;
  for (size_t k = 0; k < hunts.size(); ++k) {
    double ranks = 0;
    for (const std::string& key : keys) ranks += static_cast<double>(rank(k, key));
    apfds.push_back(1 - ranks / (items * m) + 1 / (2 * items));
    by_order[hunts[k].order.substr(0, hunts[k].order.find(' '))].push_back(k);
    out << "APFD " << four(apfds.back()) << "  reached " << firsts[k].size() << "  " << hunts[k].order << ": "
        << hunts[k].dir << "\n";
  }
  for (const auto& [order, members] : by_order)
    if (members.size() > 1) {
      double sum = 0;
      for (size_t k : members) sum += apfds[k];
      out << "APFD " << four(sum / static_cast<double>(members.size())) << "  mean of " << members.size() << " "
          << order << " orders\n";
    }
  if (!list) return 0;
  // Each finding's first item in each hunt, and the mean over each order with several hunts.
  out << "finding";
  for (const Hunt& h : hunts) out << "\t" << h.order;
  for (const auto& [order, members] : by_order)
    if (members.size() > 1) out << "\tmean " << order;
  out << "\n";
  for (const std::string& key : keys) {
    out << id_of[key];
    for (size_t k = 0; k < hunts.size(); ++k) {
      const uint64_t r = rank(k, key);
      out << "\t" << (r > n ? std::string("-") : std::to_string(r));
    }
    for (const auto& [order, members] : by_order)
      if (members.size() > 1) {
        double sum = 0;
        for (size_t k : members) sum += static_cast<double>(rank(k, key));
        out << "\t" << static_cast<uint64_t>(sum / static_cast<double>(members.size()) + 0.5);
      }
    out << "\n";
  }
  return 0;
}

}  // namespace

int print_apfd(const ApfdCommand& o, std::ostream& out) {
  std::vector<Hunt> hunts;
  for (const std::string& dir : o.dirs) hunts.push_back(read_hunt(dir));
  if (hunts.empty()) throw UsageError("apfd: name a hunt's folder");
  return hunts.size() == 1 ? print_one(hunts.front(), o.findings, out) : print_compared(hunts, o.findings, out);
}

std::shared_ptr<void> add_apfd_command(CLI::App& app, std::function<int()>& command, std::ostream& out) {
  auto o = std::make_shared<ApfdCommand>();
  auto* cmd = app.add_subcommand(
      "apfd",
      "how early a hunt's order reached its findings: APFD = 1 - (TF_1 + ... + TF_m) / (n*m) + 1/(2n) over its n "
      "items (DIR/results.jsonl) and the 1-based ranks TF_i of its m findings' first items (DIR/findings.jsonl). "
      "Several folders (one selection in different --order) are compared over the first n items all of them ran, "
      "on the findings any of them reached there, one not reached counting at item n + 1");
  cmd->add_option("DIR", o->dirs, "hunts' output folders (--out)")->required()->check(CLI::ExistingDirectory);
  cmd->add_flag("--findings", o->findings,
                "also list each finding's first item (1-based): earliest first, or per folder when comparing");
  cmd->callback([&command, o, &out] { command = [o, &out] { return print_apfd(*o, out); }; });
  return o;
}

}  // namespace opsfuzz
