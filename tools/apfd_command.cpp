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

// A finding's identity across hunts: op, backend, kind and key (an unsupported one's op is
// whichever it met first, and its key names none: hunt/findings.h).
std::string identity(const std::string& op, const std::string& backend, const std::string& kind,
                     const std::string& key) {
  return (kind == "unsupported" ? "" : op) + " | " + backend + " | " + kind + " | " + key;
}

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
    out.push_back({f["first"].get<uint64_t>(), f.value("id", ""),
                   identity(f.value("op", ""), f.value("backend", ""), kind, f.value("key", ""))});
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

// Hunts averaged together: those of one order ("random (seed 3)": "random"), or order files whose
// names differ only in digits ("random3.txt": "random.txt").
std::string order_group(const std::string& order) {
  std::string group = order.substr(0, order.find(' '));
  std::erase_if(group, [](char c) { return c >= '0' && c <= '9'; });
  return group;
}

std::string four(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", v);
  return text;
}

// Findings by their first items, earliest first (of equal ones, as listed).
std::vector<Listed> earliest_first(std::vector<Listed> findings) {
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Listed& a, const Listed& b) { return a.first < b.first; });
  return findings;
}

int print_one(const Hunt& h, bool list, std::ostream& out) {
  std::vector<uint64_t> positions;
  for (const Listed& f : h.findings) positions.push_back(f.first);
  out << hunt::apfd_line(positions, h.items) << "\n";
  if (list) {
    out << "first item  finding\n";
    for (const Listed& f : earliest_first(h.findings)) out << f.first + 1 << "  " << f.id << "\n";
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
    for (const Listed& f : earliest_first(hunts[k].findings))
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
  std::map<std::string, std::vector<size_t>> by_order;  // the hunts of each order
  out << "over the first " << n << " items every hunt ran, the " << keys.size()
      << " findings any of them reached there (one not reached counts at item " << n + 1 << "):\n";
  std::vector<double> apfds;
  for (size_t k = 0; k < hunts.size(); ++k) {
    std::vector<uint64_t> positions;  // 0-based, of the findings it reached
    for (const auto& [key, first] : firsts[k]) positions.push_back(first - 1);
    apfds.push_back(*hunt::apfd(positions, n, keys.size() - positions.size()));
    by_order[order_group(hunts[k].order)].push_back(k);
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

// The item ids of an order file: the last field of each line (prioritize's `rank score item`).
std::vector<std::string> order_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--reorder: cannot read " + path);
  std::vector<std::string> ids;
  for (std::string line; std::getline(in, line);) {
    const size_t end = line.find_last_not_of(" \t\r");
    if (end == std::string::npos) continue;
    const size_t start = line.find_last_of(" \t", end);
    ids.push_back(line.substr(start == std::string::npos ? 0 : start + 1,
                              end + 1 - (start == std::string::npos ? 0 : start + 1)));
  }
  return ids;
}

// The hunt a hunt's results would have been in another order: its items replayed in the order of
// `ids` (ids not in the results are passed over, items not in `ids` left out), the first `limit`
// of them (0: all). An item's outcome does not depend on when it runs, so this is the hunt that
// order would have run, but for nondeterministic crashes.
Hunt reordered(const std::map<std::string, runner::RecordedItem>& items, bool triage, const std::string& order,
               uint64_t limit) {
  hunt::Findings findings(!triage);
  Hunt h{order, std::filesystem::path(order).filename().string(), 0, {}};
  for (const std::string& id : order_file(order)) {
    if (limit > 0 && h.items >= limit) break;
    if (auto it = items.find(id); it != items.end()) findings.add(it->second.result, h.items++);
  }
  for (const hunt::Finding& f : findings.all())
    h.findings.push_back({f.first, f.id, identity(f.op, f.backend, hunt::name(f.kind), f.key)});
  return h;
}

int print_reordered(const ApfdCommand& o, std::ostream& out) {
  const std::filesystem::path results = std::filesystem::path(o.dirs.front()) / "results.jsonl";
  if (!std::filesystem::exists(results)) throw std::runtime_error("cannot read " + results.string());
  std::map<std::string, runner::RecordedItem> items;
  runner::for_each_recorded_item(results.string(), [&](runner::RecordedItem&& item) {
    const std::string id = item.item->id;
    items.emplace(id, std::move(item));
  });
  const bool triage = report::parameters(results.string()).value("triage", true);
  std::vector<Hunt> hunts;
  for (const std::string& order : o.reorder) hunts.push_back(reordered(items, triage, order, o.limit));
  return hunts.size() == 1 ? print_one(hunts.front(), o.findings, out) : print_compared(hunts, o.findings, out);
}

}  // namespace

int print_apfd(const ApfdCommand& o, std::ostream& out) {
  if (!o.reorder.empty()) {
    if (o.dirs.size() != 1) throw UsageError("apfd --reorder: name one hunt's folder, whose results it replays");
    return print_reordered(o, out);
  }
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
  cmd->add_option("--reorder", o->reorder,
                  "replay the hunt's results in the order of this file (lines ending in item ids: prioritize's "
                  "output) and measure it, as if the hunt had run so (an item's outcome does not depend on when it "
                  "runs); several are compared, those whose names differ only in digits averaged")
      ->check(CLI::ExistingFile);
  cmd->add_option("--items", o->limit, "--reorder: only the first N items of the order (a budget)");
  cmd->callback([&command, o, &out] { command = [o, &out] { return print_apfd(*o, out); }; });
  return o;
}

}  // namespace opsfuzz
