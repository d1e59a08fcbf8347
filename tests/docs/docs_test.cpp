// The documentation against the code: the functions docs/architecture.md names exist, the C++
// shown in the READMEs and docs/writing-specs.md is taken from the files it names, the files
// suite/README.md lists are the files of suite/, and relative links lead to files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = OPSFUZZ_SOURCE_DIR;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// ------------------------------------------------------------------- the names of functions

struct Source {
  std::string path;
  std::string text;  // without // comments
};

// Every .h and .cpp of the libraries and the CLI.
const std::vector<Source>& sources() {
  static const std::vector<Source> all = [] {
    std::vector<Source> out;
    for (const char* dir :
         {"argtypes", "opcall", "specs", "engine", "generators", "suite", "runner", "testing", "hunt", "tools"})
      for (const auto& entry : fs::recursive_directory_iterator(kRoot / dir)) {
        std::string ext = entry.path().extension().string();
        if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
        std::string text;
        for (const std::string& line : lines_of(read(entry.path()))) text += line.substr(0, line.find("//")) + "\n";
        out.push_back({fs::relative(entry.path(), kRoot).string(), std::move(text)});
      }
    return out;
  }();
  return all;
}

// The word that ends just before `end` in `text` (after skipping spaces), or "".
std::string word_before(const std::string& text, size_t end) {
  size_t e = end;
  while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
  size_t b = e;
  while (b > 0 && word_char(text[b - 1])) --b;
  return text.substr(b, e - b);
}

// Whether text[pos, ...) "name(" is declared or defined there rather than called: a return type
// (a word that is not a keyword, or a type ending in '>', '*' or '&') precedes it.
bool declared_at(const std::string& text, size_t pos) {
  static const std::set<std::string> kKeywords = {"return",   "else",     "new", "delete", "throw", "case", "co_return",
                                                  "co_await", "co_yield", "do",  "not",    "and",   "or",   "sizeof"};
  size_t e = pos;
  while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
  if (e == pos || e == 0) return false;  // no space between a type and the name
  char c = text[e - 1];
  if (c == '>' || c == '*' || c == '&') return true;
  if (!word_char(c)) return false;
  return kKeywords.count(word_before(text, e)) == 0;
}

// Where `name(` occurs in `text` as a whole word.
std::vector<size_t> occurrences(const std::string& text, const std::string& name) {
  std::vector<size_t> out;
  for (size_t p = text.find(name + "("); p != std::string::npos; p = text.find(name + "(", p + 1))
    if (p == 0 || (!word_char(text[p - 1]) && text[p - 1] != ':')) out.push_back(p);
  return out;
}

bool names_scope(const std::string& text, const std::string& scope) {
  for (const std::string& opening :
       {"namespace opsfuzz::" + scope + " ", "namespace " + scope + " ", "class " + scope + " ",
        "struct " + scope + " ", "class " + scope + " {", "struct " + scope + " {"})
    if (text.find(opening) != std::string::npos) return true;
  return false;
}

// Whether a function `qualified` ("runner::run_items", "Backend::prepare", "select_specs") is
// declared or defined in the sources: as Scope::name( after a return type (a definition out of
// its class), or as name( after a return type in a file that opens the scope.
bool exists(const std::string& qualified) {
  size_t colon = qualified.rfind("::");
  std::string name = colon == std::string::npos ? qualified : qualified.substr(colon + 2);
  std::string scope;
  if (colon != std::string::npos) {
    std::string front = qualified.substr(0, colon);
    size_t inner = front.rfind("::");
    scope = inner == std::string::npos ? front : front.substr(inner + 2);
  }
  for (const Source& s : sources()) {
    if (!scope.empty()) {
      std::string full = scope + "::" + name;
      for (size_t p = s.text.find(full + "("); p != std::string::npos; p = s.text.find(full + "(", p + 1))
        if ((p == 0 || !word_char(s.text[p - 1])) && declared_at(s.text, p)) return true;
      if (!names_scope(s.text, scope)) continue;
    }
    for (size_t p : occurrences(s.text, name))
      if (declared_at(s.text, p)) return true;
  }
  return false;
}

// The functions a document names: its code spans, outside fenced blocks, that begin with a name
// (qualified or not) and '(': `runner::run_items(items, options, report)`, `select_specs()`.
std::vector<std::string> named_functions(const fs::path& doc) {
  std::vector<std::string> out;
  bool fenced = false;
  for (const std::string& line : lines_of(read(doc))) {
    if (line.starts_with("```")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    for (size_t open = line.find('`'); open != std::string::npos;) {
      size_t close = line.find('`', open + 1);
      if (close == std::string::npos) break;
      std::string span = line.substr(open + 1, close - open - 1);
      size_t k = 0;
      while (k < span.size() && (word_char(span[k]) || span[k] == ':')) ++k;
      if (k > 0 && k < span.size() && span[k] == '(' && !std::isdigit(static_cast<unsigned char>(span[0])))
        out.push_back(span.substr(0, k));
      open = line.find('`', close + 1);
    }
  }
  return out;
}

TEST(Docs, ArchitectureNamesFunctionsThatExist) {
  std::vector<std::string> names = named_functions(kRoot / "docs/architecture.md");
  std::set<std::string> distinct(names.begin(), names.end());
  EXPECT_GE(distinct.size(), 20u) << "docs/architecture.md names functions as `name(...)`";
  for (const std::string& name : distinct)
    EXPECT_TRUE(exists(name)) << "docs/architecture.md names `" << name << "(`, which no source declares";
  // The check itself: a name no source declares fails; a call is not a declaration.
  EXPECT_FALSE(exists("runner::run_eager"));
  EXPECT_FALSE(exists("suite::run_test"));
  EXPECT_TRUE(exists("runner::run_items"));
  EXPECT_TRUE(exists("ArgumentTupleGenerator::next"));
}

// ------------------------------------------------------------------- code taken from files

// A ```cpp block of a document and the file it says it is taken from (the line before the block:
// <!-- from: PATH -->, PATH relative to the repository).
struct Block {
  std::string from;
  size_t line = 0;  // of the opening fence, 1-based
  std::vector<std::string> lines;
};

std::vector<Block> cpp_blocks(const fs::path& doc) {
  std::vector<Block> out;
  std::vector<std::string> lines = lines_of(read(doc));
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != "```cpp") continue;
    Block b;
    b.line = i + 1;
    const std::string prefix = "<!-- from: ", suffix = " -->";
    if (i > 0 && lines[i - 1].starts_with(prefix) && lines[i - 1].ends_with(suffix))
      b.from = lines[i - 1].substr(prefix.size(), lines[i - 1].size() - prefix.size() - suffix.size());
    for (++i; i < lines.size() && lines[i] != "```"; ++i) b.lines.push_back(lines[i]);
    out.push_back(std::move(b));
  }
  return out;
}

// The first line of `block` that is not, in order, a line of `file` (lines may be left out
// between them, never changed); "" when every line is.
std::string first_line_not_in(const std::vector<std::string>& block, const std::vector<std::string>& file) {
  size_t at = 0;
  for (const std::string& line : block) {
    while (at < file.size() && file[at] != line) ++at;
    if (at == file.size()) return line.empty() ? "(an empty line)" : line;
    ++at;
  }
  return "";
}

TEST(Docs, CodeBlocksAreTakenFromTheirFiles) {
  const std::map<std::string, size_t> least = {
      {"README.md", 1}, {"docs/writing-specs.md", 4}, {"docs/architecture.md", 0}, {"suite/README.md", 2}};
  for (const auto& [doc, minimum] : least) {
    std::vector<Block> blocks = cpp_blocks(kRoot / doc);
    EXPECT_GE(blocks.size(), minimum) << doc;
    for (const Block& b : blocks) {
      std::string where = doc + ":" + std::to_string(b.line);
      if (b.from.empty()) {
        ADD_FAILURE() << where << ": a ```cpp block without <!-- from: PATH --> on the line before it";
        continue;
      }
      fs::path file = kRoot / b.from;
      if (!fs::is_regular_file(file)) {
        ADD_FAILURE() << where << ": " << b.from << " does not exist";
        continue;
      }
      EXPECT_FALSE(b.lines.empty()) << where;
      std::string missing = first_line_not_in(b.lines, lines_of(read(file)));
      EXPECT_EQ(missing, "") << where << ": this line is not in " << b.from << " (in the block's order)";
    }
  }
}

TEST(Docs, TheTakenFromCheckRefusesAChangedLine) {
  std::vector<std::string> file = {"int f() {", "  return 1;", "}"};
  EXPECT_EQ(first_line_not_in({"int f() {", "}"}, file), "");
  EXPECT_EQ(first_line_not_in({"int f() {", "  return 2;", "}"}, file), "  return 2;");
  EXPECT_EQ(first_line_not_in({"}", "int f() {"}, file), "int f() {");
}

// ------------------------------------------------------------------- suite/README.md's files

// The file names in backticks in the rows of a document's tables.
std::set<std::string> tabled_files(const fs::path& doc) {
  std::set<std::string> out;
  for (const std::string& line : lines_of(read(doc))) {
    if (!line.starts_with("| `")) continue;
    std::string first = line.substr(0, line.find(" |", 1));  // the first column
    for (size_t open = first.find('`'); open != std::string::npos;) {
      size_t close = first.find('`', open + 1);
      if (close == std::string::npos) break;
      out.insert(first.substr(open + 1, close - open - 1));
      open = first.find('`', close + 1);
    }
  }
  return out;
}

TEST(Docs, SuiteReadmeListsTheFilesOfSuite) {
  std::set<std::string> listed = tabled_files(kRoot / "suite/README.md");
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(kRoot / "suite")) {
    std::string name = entry.path().filename().string();
    if (name != "CMakeLists.txt" && name != "README.md") present.insert(name);
  }
  for (const std::string& name : listed) EXPECT_TRUE(present.count(name)) << "suite/README.md lists " << name;
  for (const std::string& name : present) EXPECT_TRUE(listed.count(name)) << "suite/README.md omits " << name;
}

// ------------------------------------------------------------------- links

// A line without its code spans.
std::string prose(const std::string& line) {
  std::string out;
  bool code = false;
  for (char c : line) {
    if (c == '`') code = !code;
    else if (!code) out += c;
  }
  return out;
}

TEST(Docs, RelativeLinksLeadToFiles) {
  size_t links = 0;
  for (const char* doc : {"README.md", "docs/writing-specs.md", "docs/architecture.md", "suite/README.md"}) {
    fs::path dir = (kRoot / doc).parent_path();
    std::vector<std::string> lines = lines_of(read(kRoot / doc));
    ASSERT_FALSE(lines.empty()) << doc;
    bool fenced = false;
    for (const std::string& line : lines) {
      if (line.starts_with("```")) fenced = !fenced;
      if (fenced) continue;
      std::string text = prose(line);
      for (size_t p = text.find("]("); p != std::string::npos; p = text.find("](", p + 2)) {
        size_t close = text.find(')', p);
        std::string target = text.substr(p + 2, close - p - 2);
        target = target.substr(0, target.find('#'));
        if (target.empty() || target.find("://") != std::string::npos) continue;
        ++links;
        EXPECT_TRUE(fs::exists(dir / target)) << doc << " links to " << target;
      }
    }
  }
  EXPECT_GE(links, 5u);
}

}  // namespace
