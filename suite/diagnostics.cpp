#include "suite/diagnostics.h"

namespace opsfuzz::suite {

std::string Diagnostic::str() const {
  std::string out = pos.str() + (severity == Severity::Error ? ": error: " : ": warning: ");
  if (!test.empty()) out += test + ": ";
  if (!path.empty() && path != test) out += path + ": ";  // a test without an id is named by its path
  return out + message;
}

void Diagnostics::add(Diagnostic d) {
  // A template expands into many tests: report a problem of its shared parts once.
  std::string key = d.pos.str() + '\n' + d.message;
  if (!seen_.insert(std::move(key)).second) return;
  if (d.severity == Diagnostic::Severity::Error) ++errors_;
  items_.push_back(std::move(d));
}

void Diagnostics::error(const Pos& pos, std::string test, std::string path, std::string message) {
  add({Diagnostic::Severity::Error, pos, std::move(test), std::move(path), std::move(message)});
}

void Diagnostics::warning(const Pos& pos, std::string test, std::string path, std::string message) {
  add({Diagnostic::Severity::Warning, pos, std::move(test), std::move(path), std::move(message)});
}

std::vector<Diagnostic> Diagnostics::errors() const {
  std::vector<Diagnostic> out;
  for (const auto& d : items_)
    if (d.severity == Diagnostic::Severity::Error) out.push_back(d);
  return out;
}

std::vector<Diagnostic> Diagnostics::warnings() const {
  std::vector<Diagnostic> out;
  for (const auto& d : items_)
    if (d.severity == Diagnostic::Severity::Warning) out.push_back(d);
  return out;
}

std::string Diagnostics::str() const {
  std::string out;
  for (const auto& d : items_) out += d.str() + "\n";
  return out;
}

SuiteError::SuiteError(Diagnostics diagnostics)
    : std::runtime_error(diagnostics.str()), diagnostics_(std::move(diagnostics)) {}

}  // namespace opsfuzz::suite
