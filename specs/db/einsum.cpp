// einsum: its equation is a small language with a rule per way to break it. The equation is
// drawn from the tensors' shapes: a valid one labels each dim of each tensor, and each rule has
// its own equations breaking it alone (one Gen per rule: the valid candidates of a rule are those
// that keep it). `check` judges an equation written by hand by parsing it (einsum_verdicts).
#include "specs/db/families.h"

#include "argtypes/rng.h"

#include <array>
#include <cctype>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <tuple>

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

constexpr int kEllipsis = -1;
char letter(int i) { return static_cast<char>(i < 26 ? 'a' + i : 'A' + i - 26); }

// A term of subscripts per tensor (letters 0..51, kEllipsis) and the output (none: implicit).
struct Equation {
  std::vector<std::vector<int>> terms;
  std::optional<std::vector<int>> output;
  bool spaced = false;  // ", " between terms

  std::string text() const {
    auto term = [](const std::vector<int>& t) {
      std::string s;
      for (int l : t) s += l == kEllipsis ? std::string("...") : std::string(1, letter(l));
      return s;
    };
    std::string s;
    for (size_t i = 0; i < terms.size(); ++i) s += (i ? (spaced ? ", " : ",") : "") + term(terms[i]);
    return output ? s + "->" + term(*output) : s;
  }
  bool has_ellipsis(size_t i) const { return !terms[i].empty() && terms[i][0] == kEllipsis; }
  // The position in terms[i] of the subscript of dim d (labelled dims only).
  size_t at(size_t i, int64_t d, int64_t rank) const { return size_t(int64_t(terms[i].size()) - (rank - d)); }
  std::vector<int> used() const {
    std::vector<int> u;
    for (const auto& t : terms)
      for (int l : t)
        if (l != kEllipsis && std::find(u.begin(), u.end(), l) == u.end()) u.push_back(l);
    return u;
  }
  int fresh() const {
    auto u = used();
    for (int l = 0;; ++l)
      if (std::find(u.begin(), u.end(), l) == u.end() && (!output || std::find(output->begin(), output->end(), l) == output->end())) return l;
  }
};

// Whether the leading `covered[i]` dims of each shape broadcast, aligned from the right.
bool ellipses_broadcast(const std::vector<IntList>& shapes, const std::vector<int64_t>& covered) {
  const int64_t widest = covered.empty() ? 0 : *std::max_element(covered.begin(), covered.end());
  for (int64_t p = 0; p < widest; ++p) {
    int64_t seen = 1;
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (covered[i] <= p) continue;
      int64_t s = shapes[i][size_t(covered[i] - 1 - p)];
      if (s != 1 && seen != 1 && s != seen) return false;
      if (s != 1) seen = s;
    }
  }
  return true;
}

template <class T> void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = 0; i + 1 < v.size(); ++i) std::swap(v[i], v[i + rng.index(v.size() - i)]);
}

// How many leading dims of each shape an ellipsis covers (all 0 unless `ellipsis`).
std::vector<int64_t> ellipsis_cover(const std::vector<IntList>& shapes, bool ellipsis, Rng& rng) {
  std::vector<int64_t> covered(shapes.size(), 0);
  if (!ellipsis) return covered;
  for (size_t i = 0; i < shapes.size(); ++i) covered[i] = rng.uniform_int(0, int64_t(shapes[i].size()));
  if (!ellipses_broadcast(shapes, covered)) std::fill(covered.begin(), covered.end(), 0);
  return covered;
}

// Draws subscripts: one shared by dims that broadcast (a repeated one within a term only by dims
// of one size), and a new one only while the product of the subscripts' sizes stays small.
struct Labeller {
  std::vector<int64_t> size = std::vector<int64_t>(52, -1);  // per subscript, -1: unused
  std::vector<int> letters;
  size_t next = 0;

  explicit Labeller(Rng& rng) : letters(52) {
    std::iota(letters.begin(), letters.end(), 0);
    shuffle(letters, rng);
  }
  int64_t product() const {
    int64_t p = 1;
    for (int64_t s : size) p *= std::max<int64_t>(s, 1);
    return p;
  }
  // The subscript of dim d of `shape`, whose dims from `first` on have subscripts `term` so far.
  int label(const std::vector<int>& term, const IntList& shape, int64_t first, int64_t d, Rng& rng) {
    int64_t s = shape[size_t(d)];
    std::vector<int> same_term, other;
    for (int64_t e = first; e < d; ++e)
      if (shape[size_t(e)] == s) same_term.push_back(term[term.size() - size_t(d - e)]);
    for (int l = 0; l < 52; ++l) {
      int64_t ls = size[size_t(l)];
      if (ls >= 0 && std::find(term.begin(), term.end(), l) == term.end() && (ls == 1 || s == 1 || ls == s)) other.push_back(l);
    }
    int l;
    if (!same_term.empty() && rng.chance(0.15)) l = same_term[rng.index(same_term.size())];
    else if (!other.empty() && (rng.chance(0.5) || product() * std::max<int64_t>(s, 1) > 4096)) l = other[rng.index(other.size())];
    else l = letters[next++];
    if (size[size_t(l)] < 0 || (size[size_t(l)] == 1 && s != 1)) size[size_t(l)] = s;
    return l;
  }
};

// An explicit output (some used subscripts in any order, the ellipsis maybe) or none (implicit).
std::optional<std::vector<int>> draw_output(const Equation& eq, bool ellipsis, Rng& rng) {
  if (!rng.chance(0.6)) return std::nullopt;
  auto used = eq.used();
  shuffle(used, rng);
  used.resize(rng.index(used.size() + 1));
  if (ellipsis && rng.chance(0.5)) used.insert(used.begin() + int64_t(rng.index(used.size() + 1)), kEllipsis);
  return used;
}

// A valid equation for tensors of `shapes`, drawn at random.
Equation valid_equation(const std::vector<IntList>& shapes, Rng& rng) {
  Equation eq;
  eq.spaced = rng.chance(0.1);
  bool ellipsis = rng.chance(0.3);
  std::vector<int64_t> covered = ellipsis_cover(shapes, ellipsis, rng);
  Labeller labeller(rng);
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<int> term;
    if (ellipsis && (covered[i] > 0 || rng.chance(0.5))) term.push_back(kEllipsis);
    for (int64_t d = covered[i]; d < int64_t(shapes[i].size()); ++d) term.push_back(labeller.label(term, shapes[i], covered[i], d, rng));
    eq.terms.push_back(std::move(term));
  }
  eq.output = draw_output(eq, ellipsis, rng);
  return eq;
}

// The dims labelled by terms[i]: its last ones.
int64_t first_labelled(const Equation& eq, size_t i, int64_t rank) {
  return rank - (int64_t(eq.terms[i].size()) - (eq.has_ellipsis(i) ? 1 : 0));
}

// Each breaks one rule of `eq` (nullopt where the shapes leave no way to).
using Breaker = std::optional<std::string> (*)(Equation, const std::vector<IntList>&, Rng&);

std::optional<std::string> wrong_term_count(Equation eq, const std::vector<IntList>&, Rng& rng) {
  if (eq.terms.size() >= 2 && rng.chance(0.5)) eq.terms.pop_back();
  else eq.terms.push_back(eq.terms.back());
  return eq.text();
}

std::optional<std::string> wrong_subscript_count(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  size_t i = rng.index(shapes.size());
  auto& term = eq.terms[i];
  if (eq.has_ellipsis(i)) {
    while (int64_t(term.size()) - 1 <= int64_t(shapes[i].size())) term.push_back(eq.fresh());
  } else if (!term.empty() && rng.chance(0.5)) {
    term.pop_back();
  } else {
    term.push_back(eq.fresh());
  }
  return eq.text();
}

// A subscript repeated in a term for two dims of different sizes.
std::optional<std::string> diagonal_mismatch(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  std::vector<std::tuple<size_t, size_t, size_t>> pairs;  // term, position labelled again, its new label's position
  for (size_t i = 0; i < shapes.size(); ++i) {
    int64_t rank = int64_t(shapes[i].size()), first = first_labelled(eq, i, rank);
    for (int64_t d = first; d < rank; ++d)
      for (int64_t e = d + 1; e < rank; ++e)
        if (shapes[i][size_t(d)] != shapes[i][size_t(e)]) pairs.emplace_back(i, eq.at(i, e, rank), eq.at(i, d, rank));
  }
  if (pairs.empty()) return std::nullopt;
  auto [i, e, d] = pairs[rng.index(pairs.size())];
  eq.terms[i][e] = eq.terms[i][d];
  return eq.text();
}

// A subscript shared by dims of two tensors whose sizes differ and are not 1.
std::optional<std::string> broadcast_mismatch(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  std::vector<std::tuple<size_t, size_t, int>> pairs;  // term, position, the label it takes
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t j = i + 1; j < shapes.size(); ++j) {
      int64_t ri = int64_t(shapes[i].size()), rj = int64_t(shapes[j].size());
      for (int64_t d = first_labelled(eq, i, ri); d < ri; ++d)
        for (int64_t e = first_labelled(eq, j, rj); e < rj; ++e) {
          int64_t a = shapes[i][size_t(d)], b = shapes[j][size_t(e)];
          int l = eq.terms[i][eq.at(i, d, ri)];
          bool in_j = std::find(eq.terms[j].begin(), eq.terms[j].end(), l) != eq.terms[j].end();
          if (a != 1 && b != 1 && a != b && !in_j) pairs.emplace_back(j, eq.at(j, e, rj), l);
        }
    }
  if (pairs.empty()) return std::nullopt;
  auto [j, e, l] = pairs[rng.index(pairs.size())];
  eq.terms[j][e] = l;
  return eq.text();
}

std::optional<std::string> repeated_output(Equation eq, const std::vector<IntList>&, Rng& rng) {
  auto used = eq.used();
  if (used.empty()) return std::nullopt;
  if (!eq.output || std::count_if(eq.output->begin(), eq.output->end(), [](int l) { return l != kEllipsis; }) == 0)
    eq.output = std::vector<int>{used[rng.index(used.size())]};
  for (int l : *eq.output)
    if (l != kEllipsis) { eq.output->push_back(l); break; }
  return eq.text();
}

std::optional<std::string> output_not_in_inputs(Equation eq, const std::vector<IntList>&, Rng&) {
  int l = eq.fresh();
  if (!eq.output) eq.output = std::vector<int>{};
  eq.output->push_back(l);
  return eq.text();
}

std::optional<std::string> not_a_letter(Equation eq, const std::vector<IntList>&, Rng& rng) {
  std::string s = eq.text();
  std::vector<size_t> at;
  for (size_t k = 0; k < s.size(); ++k)
    if (std::isalpha(static_cast<unsigned char>(s[k]))) at.push_back(k);
  if (at.empty()) return "1" + s;
  s[at[rng.index(at.size())]] = "0123456789_"[rng.index(11)];
  return s;
}

// Ellipses over leading dims that do not broadcast: two terms cover more dims with theirs (the
// subscripts of those dims dropped, and from the output where no term keeps them).
std::optional<std::string> ellipsis_mismatch(Equation eq, const std::vector<IntList>& shapes, Rng& rng) {
  std::vector<int64_t> covered(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) covered[i] = first_labelled(eq, i, int64_t(shapes[i].size()));
  std::vector<std::vector<int64_t>> mismatched;  // covers of two more tensors that do not broadcast
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t j = i + 1; j < shapes.size(); ++j)
      for (int64_t ci = covered[i]; ci <= int64_t(shapes[i].size()); ++ci)
        for (int64_t cj = covered[j]; cj <= int64_t(shapes[j].size()); ++cj) {
          std::vector<int64_t> cover = covered;
          cover[i] = ci, cover[j] = cj;
          if (!ellipses_broadcast(shapes, cover)) mismatched.push_back(std::move(cover));
        }
  if (mismatched.empty()) return std::nullopt;
  const std::vector<int64_t>& cover = mismatched[rng.index(mismatched.size())];
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (cover[i] == covered[i]) continue;
    std::vector<int>& term = eq.terms[i];
    std::vector<int> kept(term.end() - (int64_t(shapes[i].size()) - cover[i]), term.end());
    term = {kEllipsis};
    term.insert(term.end(), kept.begin(), kept.end());
  }
  if (eq.output) {
    const std::vector<int> used = eq.used();
    std::erase_if(*eq.output, [&](int l) { return l != kEllipsis && std::find(used.begin(), used.end(), l) == used.end(); });
  }
  return eq.text();
}

struct EinsumRule {
  const char* text;
  Breaker breaker;
};
const EinsumRule kEinsumRules[] = {
    {"has one term per entry of tensors", wrong_term_count},
    {"has one subscript per dim of each entry of tensors in its term (at most that many with an ellipsis)", wrong_subscript_count},
    {"repeats a subscript within a term only for dims of tensors of one size", diagonal_mismatch},
    {"labels with one subscript only dims of tensors that broadcast (equal sizes or 1)", broadcast_mismatch},
    {"repeats no subscript in its output", repeated_output},
    {"has only output subscripts that appear in the terms of tensors", output_not_in_inputs},
    {"has only letters for subscripts", not_a_letter},
    {"covers with ellipses only dims of tensors that broadcast (equal sizes or 1, aligned from the right)",
     ellipsis_mismatch},
};
constexpr size_t kEinsumRuleCount = std::size(kEinsumRules);
using EinsumVerdicts = std::array<bool, kEinsumRuleCount>;  // per rule: kept

// An equation as torch.einsum reads it (spaces dropped), each character where a subscript stands
// taken as one: a letter (0..51), an ellipsis, or a character that is not a letter (kNotALetter
// plus the character, so that equal ones are one subscript).
constexpr int kNotALetter = 1000;
Equation parse_equation(std::string_view text) {
  Equation eq;
  eq.terms.emplace_back();
  auto current = [&]() -> std::vector<int>& { return eq.output ? *eq.output : eq.terms.back(); };
  for (size_t k = 0; k < text.size(); ++k) {
    const char ch = text[k];
    std::vector<int>& term = current();
    if (ch == ' ') continue;
    if (ch == ',' && !eq.output) {
      eq.terms.emplace_back();
    } else if (text.substr(k, 2) == "->" && !eq.output) {
      eq.output.emplace(), ++k;
    } else if (text.substr(k, 3) == "..." && std::find(term.begin(), term.end(), kEllipsis) == term.end()) {
      term.push_back(kEllipsis), k += 2;
    } else if (std::isalpha(static_cast<unsigned char>(ch)) && static_cast<unsigned char>(ch) < 128) {
      term.push_back(std::islower(static_cast<unsigned char>(ch)) ? ch - 'a' : ch - 'A' + 26);
    } else {
      term.push_back(kNotALetter + static_cast<unsigned char>(ch));
    }
  }
  return eq;
}

// The dim of a rank-`rank` tensor that position p of `term` labels: the subscripts before an
// ellipsis label the leading dims, those after it the trailing ones.
int64_t labelled_dim(const std::vector<int>& term, size_t p, int64_t rank) {
  auto ellipsis = std::find(term.begin(), term.end(), kEllipsis);
  if (ellipsis == term.end() || term.begin() + int64_t(p) < ellipsis) return int64_t(p);
  return rank - int64_t(term.size() - p);
}

// Which rules of einsum the equation keeps for tensors of `shapes`. Each rule is judged where the
// ones it builds on leave it a meaning: subscript counts on the terms that have a tensor, sizes on
// the terms whose count fits their tensor; a term whose repeated subscript labels dims of two sizes
// gives that subscript no size to broadcast. With no tensor at all, no rule has a meaning.
EinsumVerdicts einsum_verdicts(std::string_view text, const std::vector<IntList>& shapes) {
  EinsumVerdicts kept;
  kept.fill(true);
  if (shapes.empty()) return kept;
  const Equation eq = parse_equation(text);
  auto is_letter = [](int l) { return l >= 0 && l < 52; };
  auto count = [](const std::vector<int>& t) { return int64_t(t.size()) - std::count(t.begin(), t.end(), kEllipsis); };
  kept[0] = eq.terms.size() == shapes.size();
  std::map<int, std::vector<int64_t>> sizes;  // per subscript, its size in each term that gives it one
  std::vector<IntList> ellipsis_dims;         // per term with an ellipsis, the dims it covers
  for (size_t i = 0; i < std::min(eq.terms.size(), shapes.size()); ++i) {
    const std::vector<int>& term = eq.terms[i];
    const int64_t rank = int64_t(shapes[i].size());
    const bool ellipsis = count(term) < int64_t(term.size());
    if (ellipsis ? count(term) > rank : count(term) != rank) {
      kept[1] = false;
      continue;
    }
    if (ellipsis) {
      const int64_t before = std::find(term.begin(), term.end(), kEllipsis) - term.begin();
      ellipsis_dims.emplace_back(shapes[i].begin() + before, shapes[i].begin() + before + (rank - count(term)));
    }
    std::map<int, std::set<int64_t>> in_term;
    for (size_t p = 0; p < term.size(); ++p)
      if (term[p] != kEllipsis) in_term[term[p]].insert(shapes[i][size_t(labelled_dim(term, p, rank))]);
    for (const auto& [l, s] : in_term) {
      if (s.size() > 1) kept[2] = false;
      else sizes[l].push_back(*s.begin());
    }
  }
  for (const auto& [l, s] : sizes) {
    int64_t seen = 1;
    for (int64_t v : s) {
      if (v != 1 && seen != 1 && v != seen) kept[3] = false;
      if (v != 1) seen = v;
    }
  }
  std::vector<int64_t> widths;
  for (const IntList& dims : ellipsis_dims) widths.push_back(int64_t(dims.size()));
  kept[7] = ellipses_broadcast(ellipsis_dims, widths);
  auto all_letters = [&](const std::vector<int>& t) {
    return std::all_of(t.begin(), t.end(), [&](int l) { return l == kEllipsis || is_letter(l); });
  };
  kept[6] = std::all_of(eq.terms.begin(), eq.terms.end(), all_letters) && (!eq.output || all_letters(*eq.output));
  if (!eq.output) return kept;
  const std::vector<int> used = eq.used();
  for (size_t p = 0; p < eq.output->size(); ++p) {
    const int l = (*eq.output)[p];
    if (l == kEllipsis) continue;
    if (std::count(eq.output->begin(), eq.output->end(), l) > 1) kept[4] = false;
    if (std::find(used.begin(), used.end(), l) == used.end()) kept[5] = false;
  }
  return kept;
}

// Whether the equation breaks rule r of einsum and no other.
bool breaks_only(std::string_view text, const std::vector<IntList>& shapes, size_t r) {
  const EinsumVerdicts kept = einsum_verdicts(text, shapes);
  for (size_t k = 0; k < kEinsumRuleCount; ++k)
    if (kept[k] == (k == r)) return false;
  return true;
}

std::vector<IntList> operand_shapes(const Ctx& c) {
  std::vector<IntList> shapes;
  for (const auto& t : c.meta("tensors").tensors) shapes.push_back(t.shape);
  return shapes;
}

// The candidate equations for the tensors' shapes: valid ones, and for each rule some breaking it alone.
struct EquationPool {
  std::vector<std::string> valid;
  std::array<std::vector<std::string>, kEinsumRuleCount> broken;
};
EquationPool equation_pool(const std::vector<IntList>& shapes) {
  uint64_t seed = 0x5eed;
  for (const IntList& shape : shapes) {
    seed = derive_seed(seed, shape.size());
    for (int64_t s : shape) seed = derive_seed(seed, uint64_t(s));
  }
  Rng rng(seed);
  EquationPool pool;
  if (shapes.empty()) return {{"", "i"}, {}};  // no tensor: every equation is refused
  std::set<std::string> seen;
  for (int k = 0; k < 16 && pool.valid.size() < 8; ++k) {
    Equation eq = valid_equation(shapes, rng);
    if (seen.insert(eq.text()).second) pool.valid.push_back(eq.text());
    for (size_t r = 0; r < kEinsumRuleCount; ++r)
      if (pool.broken[r].size() < 2)
        if (auto bad = kEinsumRules[r].breaker(eq, shapes, rng); bad && breaks_only(*bad, shapes, r) && seen.insert(*bad).second)
          pool.broken[r].push_back(*bad);
  }
  return pool;
}

Cond einsum_rule(size_t r) {
  return Gen(kEinsumRules[r].text, [r](const Ctx& c) {
    std::vector<IntList> shapes = operand_shapes(c);
    EquationPool pool = equation_pool(shapes);
    GenSets g([r, shapes](const Value& v) {
      const auto* text = std::get_if<std::string>(&v);
      return text && einsum_verdicts(*text, shapes)[r];
    });
    for (const auto& e : pool.valid) g.valid.emplace_back(e);
    for (size_t k = 0; k < kEinsumRuleCount; ++k)
      for (const auto& e : pool.broken[k]) (k == r ? g.invalid : g.valid).emplace_back(e);
    return g;
  });
}

// einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
// path is a contraction order (opt_einsum's): pairs of indices into the operands left, each
// pair replaced by its product at the end.
Spec einsum() {
  const std::string op = "einsum.default";
  auto bmm_dtypes = deviation("einsum.bool_float16_products",
      "two tensors or more are contracted through bmm, whose CPU kernel has no bool and float16 path (\"bmm\" not "
      "implemented for 'Bool'); one tensor is summed and takes them",
      "ops-fuzz sweep einsum.default --config contract,half --seed 0 --max 300");
  auto summed_integral = deviation("einsum.summed_integral_products",
      "with two tensors or more, a uint8, int8, int16 or int32 tensor whose own dims are summed before the product "
      "turns int64 (sum promotes them) and bmm then refuses the mix (\"expected scalar type Int but found Long\")",
      "ops-fuzz sweep einsum.default --config contract --seed 0 --max 300");
  auto one_path = deviation("einsum.path_of_one_tensor",
      "with one tensor, only the length of path is checked: any index is taken where opt_einsum's path holds 0",
      "ops-fuzz sweep einsum.default --invalid --config contract --seed 0 --max 300");
  ArgSpec equation = String("equation").deps("tensors");
  for (size_t r = 0; r < kEinsumRuleCount; ++r) equation.value(einsum_rule(r));
  auto count = [](const Ctx& c) { return c.length("tensors"); };
  return Spec(op)
      .in(std::move(equation))
      .in(TensorList("tensors")
            .length(Ge(1))
            .length(Scope(Le(4)))  // bounds the work of a sample
            .rank(Scope(Le(4)))
            // Products promote mixed dtypes and contractions refuse them; the documentation says neither.
            .dtype(Scope(Eq("tensors[0].dtype", [](const Ctx& c) -> std::optional<S> {
              if (c.entry() <= 0) return std::nullopt;
              return c.self().tensors.at(0).dtype;
            })))
            .dtype(Avoid(bmm_dtypes, NotIn("{bool, float16} for two tensors or more", [](const Ctx& c) {
              return c.self().tensors.size() >= 2 ? std::vector{S::Bool, S::Half} : std::vector<S>{};
            })))
            .dtype(Avoid(summed_integral, NotIn("{uint8, int8, int16, int32} for two tensors or more", [](const Ctx& c) {
              return c.self().tensors.size() >= 2 ? std::vector{S::Byte, S::Char, S::Short, S::Int} : std::vector<S>{};
            }))))
      .kw(DimListOpt("path").deps("tensors")
            .length(Eq("1 for one tensor, 2 * (len(tensors) - 1) otherwise", [=](const Ctx& c) {
              return count(c) == 1 ? int64_t{1} : 2 * (count(c) - 1);
            }))
            .value(Be("[0, len(tensors) - 1 - i // 2] for entry i", [=](const Ctx& c) -> std::optional<std::vector<double>> {
              if (count(c) == 1) return std::nullopt;
              return std::vector<double>{0, double(count(c) - 1 - c.position() / 2)};
            }))
            .value(Ne("path[i - 1] for odd i (an operand is not contracted with itself)", [](const Ctx& c) -> std::optional<int64_t> {
              if (c.position() % 2 == 0) return std::nullopt;
              return c.solved(size_t(c.position() - 1));
            }))
            .value(Unchecked(one_path, Eq("0 for one tensor", [=](const Ctx& c) -> std::optional<int64_t> {
              if (count(c) != 1) return std::nullopt;
              return 0;
            }))));
}

}  // namespace

std::span<const SpecFn> einsum_specs() {
  static constexpr SpecFn table[] = {einsum};
  return table;
}

}  // namespace opsfuzz::db
