// yaml_fuzz: bytes as a YAML suite, loaded, validated and expanded, and each test's inputs and
// module materialized (no kernel runs; within a memory budget). Properties: no crash, hang, leak
// or sanitizer report, and every diagnostic of the document points inside it (a line and a
// column of the input).
#include "fuzz/check.h"
#include "suite/materialize.h"
#include "suite/suite.h"

#include <algorithm>
#include <exception>
#include <vector>

namespace {

using namespace opsfuzz;
constexpr const char* kName = "fuzz.yaml";

// The lengths of the input's lines (a last line without its newline included).
std::vector<size_t> line_lengths(std::string_view text) {
  std::vector<size_t> out;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n') out.push_back(i - start), start = i + 1;
  return out;
}

// What materializing a node may allocate, as elements (saturating): its tensor's, its list's
// and tuple's entries', and, for a module or construct node, the product of its integer
// arguments' values (Linear(in, out) holds in * out weights).
uint64_t elements(const suite::Node& n) {
  auto times = [](uint64_t a, uint64_t b) {
    uint64_t out;
    return __builtin_mul_overflow(a, b, &out) ? UINT64_MAX : out;
  };
  auto plus = [](uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; };
  uint64_t own = 1;
  for (int64_t s : n.shape) own = times(own, static_cast<uint64_t>(s));
  if (n.type == suite::NodeType::List)
    own = plus(own, times(static_cast<uint64_t>(n.len), n.elems.empty() ? 0 : elements(n.elems[0])));
  else
    for (const auto& e : n.elems) own = plus(own, elements(e));
  uint64_t weights = 1;
  auto argument = [&](const suite::Node& a) {
    if (a.has_value && a.value.is_int())
      weights = times(weights, static_cast<uint64_t>(std::max<int64_t>(a.value.i, 1)));
    own = plus(own, elements(a));
  };
  for (const auto& a : n.args) argument(a);
  for (const auto& [name, a] : n.kwargs) argument(a);
  return plus(own, weights);
}

// The harness's memory budget: a suite may ask for tensors of any size, and materializing one of
// billions of elements only measures the machine. Such tests are loaded and validated, not made.
bool affordable(const suite::Test& test) {
  constexpr uint64_t kBudget = uint64_t{1} << 22;
  uint64_t total = test.module ? elements(*test.module) : 0;
  for (const auto& n : test.in) total += std::min(elements(n), kBudget);
  for (const auto& [name, n] : test.kwargs) total += std::min(elements(n), kBudget);
  return total <= kBudget;
}

void check_position(const suite::Diagnostic& d, const std::vector<size_t>& lines) {
  if (!d.pos.file || *d.pos.file != kName) return;  // an included file's
  const std::string where = d.str();
  fuzz::require(d.pos.line >= 1 && static_cast<size_t>(d.pos.line) <= lines.size(),
                "a diagnostic's line lies inside the input: " + where);
  fuzz::require(d.pos.column >= 1 && static_cast<size_t>(d.pos.column) <= lines[size_t(d.pos.line) - 1] + 1,
                "a diagnostic's column lies inside its line: " + where);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::as_text(data, size));
  suite::LoadResult loaded = suite::read_suite_text(text, kName);
  const std::vector<size_t> lines = line_lengths(text);
  for (const suite::Diagnostic& d : loaded.diagnostics.all()) check_position(d, lines);
  if (loaded.diagnostics.has_errors()) return 0;
  for (const suite::Test& test : loaded.suite.tests) {
    if (!affordable(test)) continue;
    try {
      suite::materialize_inputs(test, 0);
      if (test.module) suite::materialize_module(test, 0);
    } catch (const std::exception&) {
      // An input the suite describes but libtorch refuses (a c10::Error naming it): not a bug.
    }
  }
  return 0;
}
