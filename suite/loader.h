// Reading suite files: YAML to Values with positions, includes, merging of dims and presets.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "suite/diagnostics.h"
#include "suite/value.h"

namespace opsfuzz::suite {

// One entry of the merged `tests` list, still as written.
struct RawTest {
  const YamlValue* node = nullptr;
  int index = 0;          // position in its own file's `tests` (used in paths: tests[3])
  std::string directory;  // of the file it came from: `file:` paths are relative to it
};

struct Definition {
  const YamlValue* value = nullptr;
  std::string file;
};

// The merged content of a suite file and everything it includes.
struct Document {
  std::vector<std::unique_ptr<YamlValue>> trees;  // owns every parsed file
  std::map<std::string, int64_t> dims;
  std::map<std::string, Definition> dim_definitions;
  std::map<std::string, Definition> presets;
  std::vector<RawTest> tests;
};

// Parses YAML text to a YamlValue tree; syntax errors go to diagnostics.
YamlValue parse_yaml(const std::string& text, const std::string& file, Diagnostics& diagnostics);

// Loads a suite file with its includes (relative to the including file; cycles are errors,
// a file reached twice contributes once). Problems go to diagnostics.
Document load_document(const std::string& path, Diagnostics& diagnostics);
// Same for a root document given as text, named `name` in messages.
Document load_document_text(const std::string& text, const std::string& name, Diagnostics& diagnostics);

}  // namespace opsfuzz::suite
