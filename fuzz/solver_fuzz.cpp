// solver_fuzz: bytes as (spec, seed, config words, valid or invalid, index), solved into one
// sample of the SpecDB, which classify then judges. Properties: a valid sample classifies valid;
// an invalid one breaks exactly the rule its label names; the same inputs give the same sample
// (its metas, validity, label and deviations) twice; it lies inside the generation scope; no
// crash or sanitizer report.
#include "engine/config.h"
#include "engine/engine.h"
#include "fuzz/check.h"
#include "generators/classify.h"
#include "generators/generators.h"
#include "specs/db/db.h"

#include <optional>
#include <set>

namespace {

using namespace opsfuzz;
// The samples before the index are generated too, twice: a few reach the generator's state after
// earlier draws at a fraction of the cost of many.
constexpr uint64_t kMaxIndex = 4;

// Reads the input from its front; past its end, zeros.
struct Reader {
  std::string_view bytes;
  size_t at = 0;
  uint64_t next(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = v << 8 | (at < bytes.size() ? static_cast<uint8_t>(bytes[at++]) : 0);
    return v;
  }
};

std::string as_text(const Sample& s) {
  std::string out = s.op + " #" + std::to_string(s.index) + (s.valid ? " valid" : " violating '" + s.violated + "'");
  for (const auto& m : s.metas) out += " " + m.to_string();
  for (const auto& d : s.deviations) out += " deviation " + d;
  return out;
}

// The sample at `index` of the stream, or nullopt when the stream ends (or cannot solve) first.
std::optional<Sample> solve(const Spec& spec, const Config& cfg, uint64_t seed, Validity validity, uint64_t index) {
  ArgumentTupleGenerator gen(spec, cfg, seed, validity);
  Sample s;
  try {
    for (uint64_t i = 0; i <= index; ++i)
      if (!gen.next(s)) return std::nullopt;
  } catch (const UnsatisfiableSpec&) {
    return std::nullopt;  // a configuration the spec has no valid sample in (its own error)
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{fuzz::as_text(data, size)};
  const auto& specs = spec_db();
  const Spec& spec = specs[in.next(2) % specs.size()];
  const uint64_t seed = in.next(8);
  // Each config word on or off, by one bit each.
  const uint64_t word_bits = in.next(4);
  std::string words;
  const auto all_words = config_words();
  for (size_t i = 0; i < all_words.size() && i < 32; ++i)
    if (word_bits >> i & 1) words += (words.empty() ? "" : ",") + std::string(all_words[i].word);
  const uint64_t flags = in.next(1);
  const Validity validity = flags & 1 ? Validity::Invalid : Validity::Valid;
  const uint64_t index = in.next(1) % kMaxIndex;
  const Config cfg = Config::parse(words);

  const std::optional<Sample> sample = solve(spec, cfg, seed, validity, index);
  if (!sample) return 0;
  const std::string what = as_text(*sample) + " (config '" + words + "', seed " + std::to_string(seed) + ")";
  const std::optional<Sample> again = solve(spec, cfg, seed, validity, index);
  fuzz::require(again && as_text(*again) == as_text(*sample), "the same inputs give the same sample: " + what);

  const Classification c = classify(spec, in_spec_order(spec, *sample), cfg);
  const std::set<std::string> broken(c.broken.begin(), c.broken.end());
  const std::set<std::string> expected =
      sample->valid ? std::set<std::string>{} : std::set<std::string>{sample->violated};
  fuzz::require(broken == expected, "classify breaks exactly the sample's label: " + what);
  const std::set<std::string> hit(c.deviations.begin(), c.deviations.end());
  fuzz::require(hit == std::set<std::string>(sample->deviations.begin(), sample->deviations.end()),
                "classify names the deviations the sample hits: " + what);
  fuzz::require(c.outside_scope.empty(), "a generated sample lies inside the scope it was generated in: " + what);
  return 0;
}
