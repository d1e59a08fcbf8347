#include "tools/merge.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "runner/results.h"
#include "tools/sweep.h"

namespace opsfuzz {

using nlohmann::json;

// ------------------------------------------------------------------------------------- split

Shard parse_shard(const std::string& text) {
  auto number = [](std::string_view s, size_t& value) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
  };
  Shard shard;
  size_t slash = text.find('/');
  std::string_view t(text);
  if (slash == std::string::npos || !number(t.substr(0, slash), shard.index) ||
      !number(t.substr(slash + 1), shard.count))
    throw UsageError("'" + text + "' is not I/N (this shard's 0-based index / the number of shards, e.g. 1/3)");
  if (shard.count == 0) throw UsageError("'" + text + "': N, the number of shards, must be at least 1");
  if (shard.index >= shard.count) throw UsageError("'" + text + "': I must be below N (shards are numbered 0 to N-1)");
  return shard;
}

void add_shard_option(CLI::App* cmd, Shard& shard, const std::string& unit) {
  // Checked when parsed, so that a bad value is a usage error naming the option.
  CLI::Validator valid(
      [](std::string& text) {
        try {
          parse_shard(text);
          return std::string();
        } catch (const UsageError& e) { return std::string(e.what()); }
      },
      "I/N");
  cmd->add_option_function<std::string>(
         "--shard", [&shard](const std::string& text) { shard = parse_shard(text); },
         "only shard I of N (0-based): the " + unit +
             "s k (in the order they run) with k % N == I, the same split on "
             "every machine; ops-fuzz merge joins the shards' results")
      ->check(valid);
}

// ------------------------------------------------------------------------------------- merge

namespace {

const char* kNeither = "neither run's results (JSONL, a meta record first) nor a sweep --json report";

// One input: run's JSONL or a sweep report.
struct Input {
  std::string path;
  bool run = false;        // run's JSONL; else a sweep report
  json head;               // the (first) meta record; the report without its rows
  std::vector<json> rows;  // item records; op rows
  std::optional<Shard> shard;

  const char* format() const { return run ? "run's results (JSONL)" : "a sweep --json report"; }
  json::json_pointer shard_field() const { return json::json_pointer(run ? "/meta/extra/shard" : "/shard"); }
  std::string key(const json& row) const { return row.at(run ? "id" : "op").get<std::string>(); }
};

void erase(json& j, const json::json_pointer& p) {
  if (j.contains(p)) j[p.parent_pointer()].erase(p.back());
}

// What the shards of one run must agree on: everything but when and where each ran, and which
// shard it was.
json comparable(const Input& in, json head) {
  erase(head, in.shard_field());
  if (in.run) {
    erase(head, json::json_pointer("/meta/created_at"));
    erase(head, json::json_pointer("/meta/env/cpu"));
  }
  return head;
}

// Where `got` first departs from `expected` ("/meta/extra/params/seed: 1, not 0"), or nullopt.
std::optional<std::string> difference(const json& expected, const json& got) {
  json patch = json::diff(expected, got);
  if (patch.empty()) return std::nullopt;
  json::json_pointer p(patch[0]["path"].get<std::string>());
  auto value = [&](const json& j) { return j.contains(p) ? j.at(p).dump() : std::string("absent"); };
  return p.to_string() + ": " + value(got) + ", not " + value(expected);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string type_of(const json& record) {
  return record.is_object() && record.contains("type") && record["type"].is_string() ? record["type"].get<std::string>()
                                                                                     : "";
}

Input read_run(const std::string& path, const std::string& text, std::ostream& err) {
  Input in;
  in.path = path, in.run = true;
  std::istringstream lines(text);
  size_t n = 0, head_line = 0;
  for (std::string line; std::getline(lines, line);) {
    std::string where = path + ":" + std::to_string(++n);
    if (line.empty()) continue;
    json record;
    try {
      record = json::parse(line);
    } catch (const json::exception& e) {  // a syntax error, or a number past double's range (1e999)
      // A run killed while writing leaves a cut record, whose item --resume runs again.
      const auto* syntax = dynamic_cast<const json::parse_error*>(&e);
      if (head_line && syntax && syntax->byte > line.size()) {
        err << "merge: " << where << ": a cut record (a killed run) skipped\n";
        continue;
      }
      throw std::runtime_error(where + ": " + kNeither + ": " + e.what());
    }
    std::string type = type_of(record);
    if (!head_line && type != "meta") throw std::runtime_error(where + ": " + kNeither);
    if (type == "item" && record.contains("id") && record["id"].is_string()) {
      in.rows.push_back(std::move(record));
    } else if (type == "meta" && !head_line) {
      in.head = std::move(record), head_line = n;
    } else if (type == "meta") {  // --resume and --append add a meta record of their own
      if (auto d = difference(comparable(in, in.head), comparable(in, record)))
        throw std::runtime_error(where + ": this meta record disagrees with line " + std::to_string(head_line) +
                                 "'s at " + *d);
      if (record.value(in.shard_field(), json()) != in.head.value(in.shard_field(), json()))
        throw std::runtime_error(where + ": this meta record is of another shard than line " +
                                 std::to_string(head_line) + "'s");
    } else {
      throw std::runtime_error(where + ": neither a meta record nor an item record");
    }
  }
  if (!head_line) throw std::runtime_error(path + ":1: " + kNeither + " (it has no record)");
  return in;
}

Input read_sweep(const std::string& path, json report) {
  Input in;
  in.path = path;
  const json& ops = report["ops"];
  for (size_t i = 0; i < ops.size(); ++i) {
    try {
      in.rows.push_back(to_json(op_sweep_from_json(ops[i])));  // checks the row, recomputes "passed"
    } catch (const json::exception& e) {
      throw std::runtime_error(path + ": ops[" + std::to_string(i) + "] is not a sweep row: " + e.what());
    }
  }
  report.erase("ops");
  in.head = std::move(report);
  return in;
}

Input read_input(const std::string& path, std::ostream& err) {
  std::string text = read_text(path);
  json whole = json::parse(text, nullptr, /*allow_exceptions=*/false);
  Input in = whole.is_object() && whole.contains("ops") && whole["ops"].is_array() ? read_sweep(path, std::move(whole))
                                                                                   : read_run(path, text, err);
  if (in.head.contains(in.shard_field())) {
    const json& s = in.head.at(in.shard_field());
    try {
      in.shard = parse_shard(s.is_string() ? s.get<std::string>() : s.dump());
    } catch (const UsageError& e) { throw std::runtime_error(path + ": its shard " + e.what()); }
  }
  return in;
}

// The inputs are of one format and agree but for the shard and timings. Shards that ran on
// different CPUs are merged, with a note: results may differ between them.
void check_agreement(const std::vector<Input>& inputs, std::ostream& err) {
  const Input& first = inputs.front();
  json expected = comparable(first, first.head);
  const json::json_pointer cpu("/meta/env/cpu");
  for (const Input& in : inputs) {
    if (in.run != first.run)
      throw std::runtime_error(in.path + ": " + in.format() + ", but " + first.path + " is " + first.format());
    if (auto d = difference(expected, comparable(in, in.head)))
      throw std::runtime_error(in.path + ": disagrees with " + first.path + " at " + *d +
                               " (the shards of one run have the same arguments and build)");
    if (in.run && in.head.value(cpu, json()) != first.head.value(cpu, json()))
      err << "merge: note: " << in.path << " ran on " << in.head.value(cpu, json()).dump() << ", " << first.path
          << " on " << first.head.value(cpu, json()).dump() << "\n";
  }
}

// Each item (op) in one input only: overlapping shards would count it twice.
void check_overlap(const std::vector<Input>& inputs) {
  std::map<std::string, const Input*> owner;
  for (const Input& in : inputs)
    for (const json& row : in.rows) {
      std::string key = in.key(row);
      auto [it, fresh] = owner.emplace(key, &in);
      if (fresh) continue;
      std::string what = std::string(in.run ? "item '" : "op '") + key + "' is ";
      throw std::runtime_error(
          what +
          (it->second->path == in.path ? "twice in " + in.path : "in both " + it->second->path + " and " + in.path) +
          ": overlapping shards");
    }
}

// Either no input is a shard, or all are shards of one split (one N).
void check_split(const std::vector<Input>& inputs) {
  auto sharded = std::find_if(inputs.begin(), inputs.end(), [](const Input& in) { return in.shard.has_value(); });
  if (sharded == inputs.end()) return;
  for (const Input& in : inputs) {
    if (!in.shard)
      throw std::runtime_error(in.path + ": not a shard (no \"shard\" in it), unlike " + sharded->path + " (" +
                               sharded->shard->str() + ")");
    if (in.shard->count != sharded->shard->count)
      throw std::runtime_error(in.path + ": shard " + in.shard->str() + ", but " + sharded->path + " is shard " +
                               sharded->shard->str() + ": shards of different splits");
  }
}

// Shards (of one split) are each there once: sorted by index, for interleave.
void order_shards(std::vector<Input>& inputs) {
  if (!inputs.front().shard) return;
  size_t count = inputs.front().shard->count;
  std::vector<const Input*> by_index(count);
  for (const Input& in : inputs) {
    if (const Input* other = by_index[in.shard->index])
      throw std::runtime_error(other->path + " and " + in.path + " are both shard " + in.shard->str());
    by_index[in.shard->index] = &in;
  }
  for (size_t i = 0; i < count; ++i) {
    if (by_index[i]) continue;
    std::string given;
    for (const Input& in : inputs) given += (given.empty() ? "" : ", ") + in.path + " (" + in.shard->str() + ")";
    throw std::runtime_error("shard " + Shard{i, count}.str() + " is missing: the merge of a split takes its " +
                             std::to_string(count) + " shards, and got " + given);
  }
  std::sort(inputs.begin(), inputs.end(),
            [](const Input& a, const Input& b) { return a.shard->index < b.shard->index; });
}

// The rows in an unsharded run's order: row j of shard i was element j*N + i of the selection.
std::vector<json> interleave(std::vector<Input>& inputs) {
  std::vector<json> rows;
  for (size_t j = 0, left = 1; left > 0; ++j) {
    left = 0;
    for (Input& in : inputs)
      if (j < in.rows.size()) rows.push_back(std::move(in.rows[j])), ++left;
  }
  return rows;
}

// The first input's head without the shard; a run began when its earliest shard did.
json merged_head(const std::vector<Input>& inputs) {
  json head = inputs.front().head;
  erase(head, inputs.front().shard_field());
  if (inputs.front().run) {
    const json::json_pointer created("/meta/created_at");
    for (const Input& in : inputs)
      if (in.head.contains(created) && head.contains(created) && in.head.at(created) < head.at(created))
        head[created] = in.head.at(created);
  }
  return head;
}

}  // namespace

int merge_results(const MergeCommand& o, std::ostream& out, std::ostream& err) {
  if (o.inputs.empty()) throw UsageError("merge: name the results files to merge");
  std::vector<Input> inputs;
  for (const std::string& path : o.inputs) inputs.push_back(read_input(path, err));
  check_agreement(inputs, err);
  check_split(inputs);
  check_overlap(inputs);  // before order_shards: a shard given twice is named by an item it repeats
  order_shards(inputs);
  bool run = inputs.front().run;
  std::string what = std::to_string(inputs.size()) + (inputs.front().shard ? " shards" : " files");
  json head = merged_head(inputs);
  std::vector<json> rows = interleave(inputs);
  size_t count = rows.size();
  if (run) {
    runner::JsonlWriter writer(o.out, /*append=*/false);
    writer.write(head);
    for (const json& row : rows) writer.write(row);
  } else {
    head["ops"] = std::move(rows);
    write_sweep_report(o.out, head);
  }
  out << "merge: " << what << ", " << count << (run ? " items" : " ops") << " into " << o.out << "\n";
  return 0;
}

std::shared_ptr<void> add_merge_command(CLI::App& app, std::function<int()>& command, std::ostream& out,
                                        std::ostream& err) {
  auto o = std::make_shared<MergeCommand>();
  auto* merge = app.add_subcommand(
      "merge",
      "merges the results of shards (run --shard I/N --out, or sweep --shard I/N --json) into OUT: the file one "
      "unsharded run with the same arguments writes, up to record order and timings");
  merge->footer(
      "The format is read from the content: run's JSONL (OUT gets one meta record, without the shard and dated "
      "by the earliest shard, then every item record) or sweep --json reports (the per-op rows of every input). "
      "The inputs must agree on everything but the shard and timings (the first disagreement is named), hold no "
      "item or op twice, and be every shard of one split once. Exit 1, naming the file at fault, otherwise.");
  merge->add_option("OUT", o->out, "the merged file (replaced)")->required();
  merge->add_option("IN", o->inputs, "the shards' results files")->required();
  merge->callback([&command, o, &out, &err] { command = [o, &out, &err] { return merge_results(*o, out, err); }; });
  return o;
}

}  // namespace opsfuzz
