#include "tools/apfd_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hunt/apfd.h"
#include "runner/results.h"

namespace opsfuzz {

namespace {

using nlohmann::json;

// The 0-based first item and the id of each finding in a findings.jsonl, as listed; a line that
// is no finding is an error naming it.
std::vector<std::pair<uint64_t, std::string>> first_items(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string() + " (is the folder a hunt's --out?)");
  std::vector<std::pair<uint64_t, std::string>> out;
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    json f = json::parse(line, nullptr, false);
    if (f.is_discarded() || !f.is_object() || !f.contains("first") || !f["first"].is_number_unsigned())
      throw std::runtime_error(path.string() + ":" + std::to_string(number) +
                               ": not a finding with its first item ('first')");
    out.emplace_back(f["first"].get<uint64_t>(), f.value("id", ""));
  }
  return out;
}

}  // namespace

int print_apfd(const ApfdCommand& o, std::ostream& out) {
  const std::filesystem::path dir(o.dir);
  std::vector<std::pair<uint64_t, std::string>> firsts = first_items(dir / "findings.jsonl");
  const std::filesystem::path results = dir / "results.jsonl";
  if (!std::filesystem::exists(results)) throw std::runtime_error("cannot read " + results.string());
  uint64_t items = 0;
  runner::for_each_item_record(results.string(), [&](const json&) { ++items; });
  std::vector<uint64_t> positions;
  for (const auto& [position, id] : firsts) positions.push_back(position);
  out << hunt::apfd_line(positions, items) << "\n";
  if (o.findings) {
    std::stable_sort(firsts.begin(), firsts.end());
    out << "first item  finding\n";
    for (const auto& [position, id] : firsts) out << std::to_string(position + 1) << "  " << id << "\n";
  }
  return 0;
}

std::shared_ptr<void> add_apfd_command(CLI::App& app, std::function<int()>& command, std::ostream& out) {
  auto o = std::make_shared<ApfdCommand>();
  auto* cmd = app.add_subcommand(
      "apfd",
      "how early a hunt's order reached its findings: APFD = 1 - (TF_1 + ... + TF_m) / (n*m) + 1/(2n) over its n "
      "items (DIR/results.jsonl) and the 1-based ranks TF_i of its m findings' first items (DIR/findings.jsonl)");
  cmd->add_option("DIR", o->dir, "a hunt's output folder (--out)")->required()->check(CLI::ExistingDirectory);
  cmd->add_flag("--findings", o->findings, "also list each finding's first item (1-based), earliest first");
  cmd->callback([&command, o, &out] { command = [o, &out] { return print_apfd(*o, out); }; });
  return o;
}

}  // namespace opsfuzz
