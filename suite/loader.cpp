#include "suite/loader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>

namespace opsfuzz::suite {

namespace fs = std::filesystem;

namespace {

using FileName = std::shared_ptr<const std::string>;

Pos pos_of(const YAML::Mark& mark, const FileName& file, const Pos& fallback) {
  if (mark.is_null() || mark.line < 0) return fallback;
  return Pos{file, mark.line + 1, mark.column + 1};
}

YamlValue convert(const YAML::Node& node, const FileName& file, const Pos& parent, Diagnostics& diagnostics);

// The first character of a suite's text that a UTF-8 YAML stream may not hold: a byte that is
// not UTF-8, or a control character other than tab, line feed and carriage return (YAML's
// printable set; a NUL among them). Where it is (line, and column in characters) and why; nullopt
// when there is none. Suites are UTF-8: read as YAML would read other bytes (the first four
// looking like UTF-32, say), the positions of every later error would name no place in the file.
std::optional<std::pair<Pos, std::string>> unreadable_character(const std::string& text, const FileName& file) {
  int line = 1, column = 1;
  auto at = [&](std::string why) { return std::make_pair(Pos{file, line, column}, std::move(why)); };
  size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a byte order mark
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    // The sequence's length, and the least code point it may encode (no overlong forms).
    const size_t length = byte < 0x80           ? 1
                          : (byte >> 5) == 0x6  ? 2
                          : (byte >> 4) == 0xE  ? 3
                          : (byte >> 3) == 0x1E ? 4
                                                : 0;
    if (length == 0 || i + length > text.size()) return at("a byte that is not UTF-8 (suites are UTF-8 text)");
    uint32_t code = length == 1 ? byte : byte & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next >> 6) != 0x2) return at("a byte that is not UTF-8 (suites are UTF-8 text)");
      code = code << 6 | (next & 0x3F);
    }
    static constexpr uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < least[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
      return at("a byte that is not UTF-8 (suites are UTF-8 text)");
    if ((code < 0x20 && code != '\t' && code != '\n' && code != '\r') || code == 0x7F || code == 0xFFFE ||
        code == 0xFFFF) {
      char name[16];
      std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(code));
      return at(std::string("a control character (") + name + "), which YAML does not allow");
    }
    i += length;
    if (code == '\n') ++line, column = 1;
    else ++column;
  }
  return std::nullopt;
}

// A scalar as PyYAML reads it: plain scalars by YAML 1.1 implicit typing, quoted ones are strings.
YamlValue convert_scalar(const YAML::Node& node, const Pos& pos) {
  const std::string& tag = node.Tag();
  const std::string& text = node.Scalar();
  if (tag == "?" || tag.empty()) return resolve_plain_scalar(text, pos);
  if (tag == "!" || tag.ends_with(":str")) return YamlValue::string(text, true, pos);
  YamlValue v = resolve_plain_scalar(text, pos);  // explicit !!int, !!float, ...: trust the text
  if (tag.ends_with(":float") && v.is_int()) return YamlValue::floating(double(v.i), pos);
  return v;
}

// Applies YAML merge keys (`<<: *base`): explicit keys win over merged ones.
void apply_merge_keys(YamlValue& map) {
  std::vector<YamlValue::Entry> merged;
  for (auto it = map.entries.begin(); it != map.entries.end();) {
    if (it->first.is_symbol() && it->first.s == "<<") {
      const YamlValue& source = it->second;
      if (source.is_map()) merged.insert(merged.end(), source.entries.begin(), source.entries.end());
      for (const auto& item : source.items)
        if (item.is_map()) merged.insert(merged.end(), item.entries.begin(), item.entries.end());
      it = map.entries.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& entry : merged)
    if (!entry.first.is_string() || !map.find(entry.first.s)) map.entries.push_back(entry);
}

YamlValue convert_map(const YAML::Node& node, const FileName& file, const Pos& pos, Diagnostics& diagnostics) {
  YamlValue out = YamlValue::map(pos);
  for (const auto& item : node) {
    YamlValue key = convert(item.first, file, pos, diagnostics);
    YamlValue value = convert(item.second, file, key.pos, diagnostics);
    // A repeated key keeps its first place and takes the last value, as PyYAML reads it.
    auto same = std::find_if(out.entries.begin(), out.entries.end(), [&](const auto& entry) {
      return python_equal(entry.first, key) && !(key.is_symbol() && key.s == "<<");
    });
    if (same == out.entries.end()) {
      out.entries.emplace_back(std::move(key), std::move(value));
      continue;
    }
    diagnostics.warning(key.pos, "", "",
                        "duplicate key '" + python_str(key) + "' (first at line " +
                            std::to_string(same->first.pos.line) + "): the last value is used");
    same->second = std::move(value);
  }
  apply_merge_keys(out);
  return out;
}

YamlValue convert(const YAML::Node& node, const FileName& file, const Pos& parent, Diagnostics& diagnostics) {
  Pos pos = pos_of(node.Mark(), file, parent);
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return convert_scalar(node, pos);
    case YAML::NodeType::Sequence: {
      YamlValue out = YamlValue::list(pos);
      for (const auto& item : node) out.items.push_back(convert(item, file, pos, diagnostics));
      return out;
    }
    case YAML::NodeType::Map: return convert_map(node, file, pos, diagnostics);
    default: return YamlValue::null(pos);
  }
}

// A dim's integer: an int, or what the original framework coerces to one (4.0, "4").
std::optional<int64_t> dim_value(const YamlValue& v) {
  std::optional<YamlValue> number = v;
  if (v.is_string()) number = parse_numeric_string(v.s);
  if (!number || !number->is_number()) return std::nullopt;
  if (number->is_int()) return number->i;
  if (number->f != std::trunc(number->f) || std::abs(number->f) > 9.0e15) return std::nullopt;
  return static_cast<int64_t>(number->f);
}

std::vector<std::string> names(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

class Loader {
 public:
  Loader(Document& doc, Diagnostics& diagnostics) : doc_(doc), diagnostics_(diagnostics) {}

  void load(const fs::path& shown, const Pos& from, bool root);
  void load_text(const std::string& text, const fs::path& shown, bool root);

 private:
  void load_includes(const YamlValue& include, const fs::path& directory);
  void merge_dims(const YamlValue& dims, const std::string& file);
  void merge_presets(const YamlValue& presets, const std::string& file);
  void add_tests(const YamlValue& tests, const std::string& directory);
  // Same name in two files: equal values merge silently, different ones are an error.
  bool merge_definition(std::map<std::string, Definition>& into, const YamlValue& key, const YamlValue& value,
                        const std::string& file, const char* what);

  Document& doc_;
  Diagnostics& diagnostics_;
  std::vector<std::string> stack_;  // files being loaded, for cycle detection
  std::set<std::string> loaded_;
};

void Loader::load(const fs::path& shown, const Pos& from, bool root) {
  std::ifstream in(shown);
  if (!in) {
    diagnostics_.error(from, "", "", "cannot read suite file '" + shown.string() + "'");
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  load_text(text.str(), shown, root);
}

void Loader::load_text(const std::string& text, const fs::path& shown, bool root) {
  std::string identity = fs::absolute(shown).lexically_normal().string();
  loaded_.insert(identity);
  auto tree = std::make_unique<YamlValue>(parse_yaml(text, shown.string(), diagnostics_));
  const YamlValue& top = *doc_.trees.emplace_back(std::move(tree));
  if (!top.is_map()) {
    if (!top.is_null() || root)
      diagnostics_.error(top.pos, "", "", "a suite file must be a mapping with a 'tests' list");
    return;
  }
  static const auto kTopKeys = names({"include", "dims", "presets", "tests"});
  for (const auto& [key, value] : top.entries)
    if (!key.is_string() || std::find(kTopKeys.begin(), kTopKeys.end(), key.s) == kTopKeys.end())
      diagnostics_.error(key.pos, "", "",
                         "unknown top-level key '" + python_str(key) + "'" + did_you_mean(python_str(key), kTopKeys));
  stack_.push_back(identity);
  fs::path directory = shown.parent_path();
  if (const YamlValue* include = top.find("include")) load_includes(*include, directory);
  std::string file = shown.string();
  if (const YamlValue* dims = top.find("dims")) merge_dims(*dims, file);
  if (const YamlValue* presets = top.find("presets")) merge_presets(*presets, file);
  if (const YamlValue* tests = top.find("tests")) add_tests(*tests, directory.string());
  else if (root) diagnostics_.error(top.pos, "", "", "missing required key 'tests'");
  stack_.pop_back();
}

void Loader::load_includes(const YamlValue& include, const fs::path& directory) {
  std::vector<const YamlValue*> entries;
  if (include.is_list()) {
    for (const auto& item : include.items) entries.push_back(&item);
  } else {
    entries.push_back(&include);
  }
  for (const YamlValue* entry : entries) {
    if (!entry->is_string()) {
      diagnostics_.error(entry->pos, "", "include", "include entries must be file names");
      continue;
    }
    fs::path path = (directory / entry->s).lexically_normal();
    std::string identity = fs::absolute(path).lexically_normal().string();
    auto on_stack = std::find(stack_.begin(), stack_.end(), identity);
    if (on_stack != stack_.end()) {
      std::string chain;
      for (auto it = on_stack; it != stack_.end(); ++it) chain += *it + " -> ";
      diagnostics_.error(entry->pos, "", "include", "include cycle: " + chain + identity);
      continue;
    }
    if (loaded_.count(identity)) continue;  // a diamond: the file already contributed once
    load(path, entry->pos, false);
  }
}

bool Loader::merge_definition(std::map<std::string, Definition>& into, const YamlValue& key, const YamlValue& value,
                              const std::string& file, const char* what) {
  auto [it, inserted] = into.emplace(key.s, Definition{&value, file});
  if (inserted) return true;
  if (!python_equal(*it->second.value, value))
    diagnostics_.error(key.pos, "", std::string(what) + "." + key.s,
                       std::string(what == std::string("dims") ? "dim" : "preset") + " '" + key.s +
                           "' is defined differently in " + it->second.file + " and " + file);
  return false;
}

void Loader::merge_dims(const YamlValue& dims, const std::string& file) {
  if (dims.is_null()) return;
  if (!dims.is_map()) {
    diagnostics_.error(dims.pos, "", "dims", "dims must be a mapping of names to integers");
    return;
  }
  for (const auto& [key, value] : dims.entries) {
    if (!key.is_string()) {
      diagnostics_.error(key.pos, "", "dims", "dim names must be strings");
      continue;
    }
    auto size = dim_value(value);
    if (!size || *size < 0) {
      diagnostics_.error(value.pos, "", "dims." + key.s,
                         "dim '" + key.s + "' must be a non-negative integer, got " + python_repr(value));
      continue;
    }
    if (merge_definition(doc_.dim_definitions, key, value, file, "dims")) doc_.dims[key.s] = *size;
  }
}

void Loader::merge_presets(const YamlValue& presets, const std::string& file) {
  if (presets.is_null()) return;
  if (!presets.is_map()) {
    diagnostics_.error(presets.pos, "", "presets", "presets must be a mapping of names to nodes");
    return;
  }
  for (const auto& [key, value] : presets.entries) {
    if (!key.is_string()) {
      diagnostics_.error(key.pos, "", "presets", "preset names must be strings");
      continue;
    }
    merge_definition(doc_.presets, key, value, file, "presets");
  }
}

void Loader::add_tests(const YamlValue& tests, const std::string& directory) {
  if (tests.is_null()) return;
  if (!tests.is_list()) {
    diagnostics_.error(tests.pos, "", "tests", "tests must be a list");
    return;
  }
  for (size_t k = 0; k < tests.items.size(); ++k)
    doc_.tests.push_back(RawTest{&tests.items[k], static_cast<int>(k), directory});
}

}  // namespace

YamlValue parse_yaml(const std::string& text, const std::string& file, Diagnostics& diagnostics) {
  auto name = std::make_shared<const std::string>(file);
  Pos start{name, 1, 1};
  if (auto bad = unreadable_character(text, name)) {
    diagnostics.error(bad->first, "", "", bad->second);
    return YamlValue::null(start);
  }
  try {
    return convert(YAML::Load(text), name, start, diagnostics);
  } catch (const YAML::Exception& e) {
    diagnostics.error(pos_of(e.mark, name, start), "", "", "YAML syntax error: " + e.msg);
    return YamlValue::null(start);
  }
}

Document load_document(const std::string& path, Diagnostics& diagnostics) {
  Document doc;
  Loader(doc, diagnostics).load(fs::path(path), Pos{}, true);
  return doc;
}

Document load_document_text(const std::string& text, const std::string& name, Diagnostics& diagnostics) {
  Document doc;
  Loader(doc, diagnostics).load_text(text, fs::path(name), true);
  return doc;
}

}  // namespace opsfuzz::suite
