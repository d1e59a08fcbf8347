#include "tools/minimal_suites.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "argtypes/text.h"
#include "engine/config.h"
#include "generators/generators.h"
#include "generators/minimal.h"
#include "specs/model/spec.h"
#include "tools/sample_json.h"
#include "tools/sample_yaml.h"

namespace opsfuzz {

namespace {

constexpr double kPairShare = 0.9;  // StableHLO's G2: 90 % when all is impractical

std::string percent(size_t part, size_t whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", whole == 0 ? 100.0 : 100.0 * static_cast<double>(part) / whole);
  return text;
}

void write_suite(const Spec& spec, const std::vector<Sample>& pool, const MinimalCover& cover, const YamlOrigin& origin,
                 std::ostream& out) {
  YamlSuiteWriter yaml(out, origin);
  for (size_t i : cover.chosen) yaml.add(spec, pool[i]);
  yaml.finish();
}

}  // namespace

int generate_minimal(const GenerateOptions& o, std::ostream& out, std::ostream& err) {
  const Config cfg = parse_config(o.config);
  const std::vector<const Spec*> specs = select_specs(o.selection);
  if (o.format == SampleFormat::Yaml && specs.size() > 1 && o.out_dir.empty())
    throw UsageError("--minimal --format yaml: " + std::to_string(specs.size()) +
                     " ops make one suite each: say where with --out-dir DIR");
  if (!o.out_dir.empty()) std::filesystem::create_directories(o.out_dir);
  const bool summary = o.format == SampleFormat::Summary;
  char line[256];
  if (summary) {
    std::snprintf(line, sizeof line, "%-30s %6s %7s %11s %15s %7s  %s\n", "op", "pool", "chosen", "single", "pairs",
                  "share", "categories");
    out << line;
  }
  size_t chosen = 0, singles = 0, singles_total = 0, pairs = 0, pairs_total = 0;
  for (const Spec* spec : specs) {
    std::vector<Sample> pool;
    try {
      pool = generate_samples(*spec, cfg, o.seed, o.invalid ? Validity::Invalid : Validity::Valid,
                              static_cast<size_t>(o.pool));
    } catch (const std::exception& e) {
      err << spec->op() << ": no pool: " << e.what() << "\n";
      continue;
    }
    std::vector<CoverKeys> keys;
    std::set<std::string> categories;
    for (const Sample& s : pool) keys.push_back(review_keys(s));
    const MinimalCover cover = minimal_cover(keys, kPairShare);
    for (size_t i : cover.chosen)
      for (const std::string& c : type_categories(pool[i])) categories.insert(c);
    chosen += cover.chosen.size(), singles += cover.singles, singles_total += cover.singles_total;
    pairs += cover.pairs, pairs_total += cover.pairs_total;
    if (summary) {
      std::snprintf(line, sizeof line, "%-30s %6zu %7zu %5zu/%-5zu %7zu/%-7zu %7s  %s\n", spec->op().c_str(),
                    pool.size(), cover.chosen.size(), cover.singles, cover.singles_total, cover.pairs,
                    cover.pairs_total, percent(cover.pairs, cover.pairs_total).c_str(),
                    (categories.empty() ? std::string("-") : join(categories, ",")).c_str());
      out << line;
    } else if (o.format == SampleFormat::Jsonl) {
      for (size_t i : cover.chosen) out << to_json(*spec, pool[i]) << '\n';
    } else {
      const YamlOrigin origin{o.seed, o.config, o.invalid, std::nullopt};
      if (o.out_dir.empty()) {
        write_suite(*spec, pool, cover, origin, out);
      } else {
        const auto path = std::filesystem::path(o.out_dir) / (identifier(spec->op()) + ".yaml");
        std::ofstream file(path);
        write_suite(*spec, pool, cover, origin, file);
        if (!file) throw std::runtime_error("--out-dir: cannot write " + path.string());
      }
    }
  }
  if (summary) {
    std::snprintf(line, sizeof line, "%-30s %6s %7zu %5zu/%-5zu %7zu/%-7zu %7s\n", "total", "", chosen, singles,
                  singles_total, pairs, pairs_total, percent(pairs, pairs_total).c_str());
    out << line;
  }
  err << "minimal: " << chosen << " samples of " << specs.size() << " ops cover " << singles << " of " << singles_total
      << " single classes and " << percent(pairs, pairs_total) << " of the pair classes their pools (" << o.pool
      << " samples each) reach"
      << (o.out_dir.empty() || o.format != SampleFormat::Yaml ? "" : "; suites in " + o.out_dir) << "\n";
  return 0;
}

}  // namespace opsfuzz
