// Diversity against FACTO: for every op of bench/facto-rates.tsv that our SpecDB has, as many
// valid samples as one FACTO round yields (seed 0, default configuration) must cover at least
// FACTO's single-argument classes and more argument-pair classes, in total and for >= 90 % of
// the ops. The per-op table is printed on every run so that the figures can be quoted.
//
// Two cases are judged as what they are rather than as shortfalls: an op of one argument has no
// pairs, here or in FACTO, so there are none to cover more of; and it is shown, not excused, when
// FACTO's round already covers a new pair with every sample (no round of as many samples can
// cover more). FACTO's factory specs leave out layout, device and pin_memory, which ours have:
// the comparison is also made without them ("facto args"), so that they cannot carry it.
#include "bench/facto_rates.h"
#include "generators/diversity.h"
#include "generators/generators.h"
#include "generators/minimal.h"
#include "specs/db/db.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include <set>

namespace opsfuzz {
namespace {

// The factory keywords FACTO's specs do not have.
bool facto_lacks(const ArgSpec& a) { return is_layout(a.type) || is_device(a.type) || a.name == "pin_memory"; }

struct Count {
  size_t args = 0;
  uint64_t single = 0, pairs = 0;
};

struct Row {
  FactoRates facto;
  Count all, common;  // every argument of our spec; those FACTO's spec has too
  bool no_pairs(const Count& c) const { return c.args < 2 && facto.pairs == 0; }
  // FACTO covered a new pair with every sample of a two-argument op.
  bool facto_at_ceiling() const { return facto.pairs == facto.tuples_per_round && common.args == 2; }
  bool single_met(const Count& c) const { return c.single >= facto.single; }
  bool pairs_met(const Count& c) const { return c.pairs > facto.pairs || (no_pairs(c) && c.pairs == 0); }
  bool met(const Count& c) const { return single_met(c) && pairs_met(c); }
  std::string verdict() const {
    if (met(all) && met(common)) return no_pairs(all) ? "ok (one argument: no pairs)" : "ok";
    std::string v = !single_met(common) ? "FEWER SINGLE" : "";
    if (!pairs_met(common))
      v += std::string(v.empty() ? "" : ", ") + (common.pairs < facto.pairs ? "FEWER PAIRS"
                                                 : facto_at_ceiling()       ? "SAME PAIRS (FACTO at the ceiling)"
                                                                            : "SAME PAIRS");
    return v + (met(all) ? " (facto args only)" : "");
  }
};

Row measure(const FactoRates& f, const Spec& spec) {
  Row r{f};
  std::vector<size_t> common;
  for (size_t i = 0; i < spec.args().size(); ++i)
    if (!facto_lacks(spec.args()[i])) common.push_back(i);
  r.all.args = spec.args().size(), r.common.args = common.size();
  ArgumentTupleGenerator gen(spec, Config{}, 0, Validity::Valid);
  DiversityCounter all, facto_args;
  Sample s;
  std::vector<MetaArg> metas;
  for (uint64_t i = 0; i < f.tuples_per_round; ++i) {
    if (!gen.next(s)) throw std::runtime_error(spec.op() + ": the valid stream ended");
    all.observe(s);
    metas.clear();
    for (size_t a : common) metas.push_back(s.metas[a]);
    facto_args.observe(metas);
  }
  r.all.single = all.single(), r.all.pairs = all.pairs();
  r.common.single = facto_args.single(), r.common.pairs = facto_args.pairs();
  return r;
}

struct Totals {
  uint64_t single = 0, pairs = 0;
  size_t met = 0;
};

TEST(FactoComparison, OneRoundCoversMoreClassesThanFacto) {
  std::vector<Row> rows;
  std::vector<std::string> missing;
  for (const auto& f : read_facto_rates(OPSFUZZ_FACTO_RATES)) {
    if (const Spec* spec = find_spec(f.op)) rows.push_back(measure(f, *spec));
    else missing.push_back(f.op);
  }
  ASSERT_FALSE(rows.empty());

  Totals all, common, facto;
  size_t met_literal = 0;  // one-argument ops and FACTO's ceiling counted as short
  std::printf("%-32s %5s %4s %6s %6s %6s %6s %6s %6s  %s\n", "op", "round", "args", "single", "(facto", "pairs",
              "(facto", "FACTO", "FACTO", "");
  std::printf("%-32s %5s %4s %6s %6s %6s %6s %6s %6s\n", "", "", "", "", "args)", "", "args)", "single", "pairs");
  for (const auto& r : rows) {
    all.single += r.all.single, all.pairs += r.all.pairs, all.met += r.met(r.all);
    common.single += r.common.single, common.pairs += r.common.pairs, common.met += r.met(r.common);
    facto.single += r.facto.single, facto.pairs += r.facto.pairs;
    met_literal += r.single_met(r.all) && r.all.pairs > r.facto.pairs;
    std::printf("%-32s %5llu %4zu %6llu %6llu %6llu %6llu %6llu %6llu  %s\n", r.facto.op.c_str(),
                static_cast<unsigned long long>(r.facto.tuples_per_round), r.all.args,
                static_cast<unsigned long long>(r.all.single), static_cast<unsigned long long>(r.common.single),
                static_cast<unsigned long long>(r.all.pairs), static_cast<unsigned long long>(r.common.pairs),
                static_cast<unsigned long long>(r.facto.single), static_cast<unsigned long long>(r.facto.pairs),
                r.verdict().c_str());
  }
  const double n = static_cast<double>(rows.size());
  auto summary = [&](const char* what, const Totals& t) {
    std::printf("%s: single %llu vs FACTO %llu, pairs %llu vs FACTO %llu; %zu of %zu ops meet it (%.1f %%)\n", what,
                static_cast<unsigned long long>(t.single), static_cast<unsigned long long>(facto.single),
                static_cast<unsigned long long>(t.pairs), static_cast<unsigned long long>(facto.pairs), t.met,
                rows.size(), 100 * static_cast<double>(t.met) / n);
    RecordProperty(std::string(what) + "_single", std::to_string(t.single) + " vs " + std::to_string(facto.single));
    RecordProperty(std::string(what) + "_pairs", std::to_string(t.pairs) + " vs " + std::to_string(facto.pairs));
    RecordProperty(std::string(what) + "_ops_meeting", std::to_string(t.met) + " of " + std::to_string(rows.size()));
  };
  summary("all args", all);
  summary("facto args", common);
  std::printf("counting one-argument ops and FACTO's ceiling as short: %zu of %zu ops (%.1f %%)\n", met_literal,
              rows.size(), 100 * static_cast<double>(met_literal) / n);
  std::string not_ours;
  for (const auto& op : missing) not_ours += (not_ours.empty() ? "" : ", ") + op;
  std::printf("FACTO ops not in our SpecDB (%zu): %s\n", missing.size(), not_ours.c_str());
  std::fflush(stdout);

  for (const Totals* t : {&all, &common}) {
    EXPECT_GE(t->single, facto.single);
    EXPECT_GT(t->pairs, facto.pairs);
    EXPECT_GE(static_cast<double>(t->met) / n, 0.9);
  }
}

// Minimal suites against FACTO (generators/minimal.h, `generate --minimal`): per op of FACTO's, a
// pool of 1000 valid samples (seed 0, default configuration). How many of them reach the
// diversity classes FACTO's round reaches — the greedy cover of FACTO's count of single classes —
// against the samples of that round; and the minimal suite's size: every review class of the pool,
// 90 % of their pairs, each type category the pool has.
TEST(FactoComparison, MinimalSuitesNeedFewerSamplesThanARound) {
  constexpr size_t kPool = 1000;
  uint64_t round = 0, facto_single = 0, to_facto = 0, suite = 0, pairs = 0, pairs_total = 0;
  size_t ops = 0, fewer = 0;
  std::printf("%-32s %5s %6s %8s %6s %8s %7s\n", "op", "round", "FACTO", "ours for", "suite", "review", "pairs");
  std::printf("%-32s %5s %6s %8s %6s %8s %7s\n", "", "", "single", "them", "", "single", "");
  for (const auto& f : read_facto_rates(OPSFUZZ_FACTO_RATES)) {
    const Spec* spec = find_spec(f.op);
    if (!spec) continue;
    const std::vector<Sample> pool = generate_samples(*spec, Config{}, 0, Validity::Valid, kPool);
    std::vector<CoverKeys> diversity, review;
    std::set<std::string> categories;
    for (const Sample& s : pool) {
      diversity.push_back(diversity_cover_keys(s));
      review.push_back(review_keys(s));
      for (const std::string& c : type_categories(s)) categories.insert(c);
    }
    const MinimalCover facto_cover = minimal_cover(diversity, 0.0, f.single);
    const MinimalCover cover = minimal_cover(review, 0.9);
    ASSERT_GE(facto_cover.singles, f.single) << f.op << ": the pool reaches fewer classes than FACTO's round";
    EXPECT_EQ(cover.singles, cover.singles_total) << f.op;
    EXPECT_GE(static_cast<double>(cover.pairs), 0.9 * static_cast<double>(cover.pairs_total)) << f.op;
    std::set<std::string> covered;
    for (size_t i : cover.chosen)
      for (const std::string& c : type_categories(pool[i])) covered.insert(c);
    EXPECT_EQ(covered, categories) << f.op << ": a type category of the pool is missing";
    ++ops, fewer += facto_cover.chosen.size() < f.tuples_per_round;
    round += f.tuples_per_round, facto_single += f.single, to_facto += facto_cover.chosen.size();
    suite += cover.chosen.size(), pairs += cover.pairs, pairs_total += cover.pairs_total;
    std::printf("%-32s %5llu %6llu %8zu %6zu %8zu %6.1f%%\n", f.op.c_str(),
                static_cast<unsigned long long>(f.tuples_per_round), static_cast<unsigned long long>(f.single),
                facto_cover.chosen.size(), cover.chosen.size(), cover.singles_total,
                100.0 * static_cast<double>(cover.pairs) / static_cast<double>(std::max<size_t>(cover.pairs_total, 1)));
  }
  std::printf(
      "over %zu ops: FACTO's rounds %llu samples for %llu single classes; ours %llu samples for as many "
      "(fewer for %zu ops); minimal suites %llu samples, %.1f %% of their pool's review pairs\n",
      ops, static_cast<unsigned long long>(round), static_cast<unsigned long long>(facto_single),
      static_cast<unsigned long long>(to_facto), fewer, static_cast<unsigned long long>(suite),
      100.0 * static_cast<double>(pairs) / static_cast<double>(pairs_total));
  std::fflush(stdout);
  RecordProperty("facto_round_samples", std::to_string(round));
  RecordProperty("ours_for_facto_single", std::to_string(to_facto));
  RecordProperty("minimal_suite_samples", std::to_string(suite));
  EXPECT_LT(to_facto, round);
}

}  // namespace
}  // namespace opsfuzz
