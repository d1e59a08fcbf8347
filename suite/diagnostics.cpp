#include "suite/diagnostics.h"

#include <algorithm>

namespace opsfuzz::suite {

std::string Diagnostic::str() const {
  std::string out = pos.str() + (severity == Severity::Error ? ": error: " : ": warning: ");
  if (!test.empty()) out += test + ": ";
  if (!path.empty()) out += path + ": ";
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

// Edit distance counting a swap of neighbours as one edit (the commonest typo).
static size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string closest(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;  // beyond this: no suggestion
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  std::string best = closest(word, candidates);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

}  // namespace opsfuzz::suite
