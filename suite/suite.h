// Loading a YAML suite: read, validate and expand it into concrete tests.
#pragma once

#include <string>

#include "suite/diagnostics.h"
#include "suite/model.h"

namespace opsfuzz::suite {

struct LoadResult {
  Suite suite;              // complete only when diagnostics has no errors
  Diagnostics diagnostics;  // every error and warning found
};

// Reads a suite file (with its includes); never throws for problems of the document.
LoadResult read_suite(const std::string& path);

// Same, from text; includes are relative to the directory of `name`.
LoadResult read_suite_text(const std::string& yaml, const std::string& name = "<string>");

// read_suite, throwing SuiteError (listing every error) if the document is invalid.
Suite load_suite(const std::string& path);

}  // namespace opsfuzz::suite
