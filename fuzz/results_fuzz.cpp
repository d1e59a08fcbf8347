// results_fuzz: bytes as a results file (run's and the hunt's results JSONL, a sweep --json
// report), read as --resume, the report and apfd read it (their items, each read back) and as
// `merge` reads it. Properties: a clean error that names the file and line (merge: the file),
// or a reading that writes back what it read: an item record written back reads back to the
// same record, and a merged file merges again into the same text.
#include "fuzz/check.h"
#include "runner/results.h"
#include "tools/commands.h"
#include "tools/merge.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace {

using namespace opsfuzz;

// The harness's files: one folder per process, so that parallel jobs keep apart.
std::string file(const std::string& name) {
  static const std::string dir = [] {
    std::string d = "/tmp/opsfuzz-results-fuzz-" + std::to_string(::getpid());
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir + "/" + name;
}

void write(const std::string& path, std::string_view text) {
  std::ofstream(path, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
}

std::string read(const std::string& path) {
  std::ostringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

// An error message that names the file: at its start with a line of it (`line`), or anywhere
// (merge's errors about the set of files name each one they are about).
void require_located(const std::string& message, const std::string& path, bool line) {
  if (!line) return fuzz::require(message.find(path) != std::string::npos, "the error names " + path + ": " + message);
  static const std::regex with_line("^[^:]*:[0-9]+: ");
  fuzz::require(message.rfind(path + ":", 0) == 0 && std::regex_search(message, with_line),
                "the error names " + path + " and a line: " + message);
}

void items_write_back(const std::string& path) {
  try {
    runner::for_each_recorded_item(path, [](runner::RecordedItem&& item) {
      const nlohmann::json written = runner::item_record(item.result);
      runner::RecordedItem again = runner::item_from_record(written);
      const nlohmann::json rewritten = runner::item_record(again.result);
      fuzz::require(written == rewritten,
                    "an item record written back reads back the same: " + written.dump() + " then " + rewritten.dump());
    });
  } catch (const std::runtime_error& e) { require_located(e.what(), path, true); }
  runner::completed_items(path);  // --resume's ids: never an error
}

void merges_again(const std::string& path) {
  std::ostringstream out, err;
  const std::string merged = file("merged"), again = file("again");
  try {
    merge_results(MergeCommand{merged, {path}}, out, err);
  } catch (const std::runtime_error& e) {
    require_located(e.what(), path, false);
    return;
  }
  try {
    merge_results(MergeCommand{again, {merged}}, out, err);
  } catch (const std::runtime_error& e) { fuzz::violated("a merged file merges again: " + std::string(e.what())); }
  fuzz::require(read(again) == read(merged), "a merged file merges again into the same text");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = file("results.jsonl");
  write(path, fuzz::as_text(data, size));
  items_write_back(path);
  merges_again(path);
  return 0;
}
