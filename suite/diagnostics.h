// Validation errors and warnings: where (file:line:column), which test, which path, why.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "argtypes/names.h"  // did_you_mean, closest: the suggestions in messages
#include "suite/value.h"

namespace opsfuzz::suite {

struct Diagnostic {
  enum class Severity { Error, Warning };
  Severity severity = Severity::Error;
  Pos pos;
  std::string test;     // "tests[3] (id add_x)" or empty outside tests
  std::string path;     // "tests[3].in[0].elem.low"
  std::string message;  // includes "did you mean" suggestions

  // "file:3:7: error: tests[3] (add_x): tests[3].in[0].low: low and high must be given together"
  std::string str() const;
};

// Collects every problem found so all of them are reported together.
class Diagnostics {
 public:
  void error(const Pos& pos, std::string test, std::string path, std::string message);
  void warning(const Pos& pos, std::string test, std::string path, std::string message);

  bool has_errors() const { return errors_ > 0; }
  size_t error_count() const { return errors_; }
  const std::vector<Diagnostic>& all() const { return items_; }
  std::vector<Diagnostic> errors() const;
  std::vector<Diagnostic> warnings() const;
  std::string str() const;  // one line per diagnostic

 private:
  void add(Diagnostic d);
  std::vector<Diagnostic> items_;
  std::set<std::string> seen_;  // position and message of each item
  size_t errors_ = 0;
};

// Thrown by load_suite when the document has errors; what() lists them all.
class SuiteError : public std::runtime_error {
 public:
  explicit SuiteError(Diagnostics diagnostics);
  const Diagnostics& diagnostics() const { return diagnostics_; }

 private:
  Diagnostics diagnostics_;
};

}  // namespace opsfuzz::suite
