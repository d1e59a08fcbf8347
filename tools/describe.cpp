// ops-fuzz describe: a spec rendered for its reader (tools/describe.h).
#include "tools/describe.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <sstream>

#include "argtypes/argtypes.h"
#include "argtypes/rng.h"
#include "engine/config.h"
#include "engine/engine.h"
#include "engine/joint.h"
#include "tools/commands.h"

namespace opsfuzz {

namespace {

using A = Attribute;
// The column wrapped prose (the signature, reasons, config lines) stops at. Labels are never
// wrapped: each stands whole on its line, where a search for it finds it.
constexpr size_t kWidth = 120;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string joined(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

std::string padded(const std::string& s, size_t width) {
  return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}

// Text after `head` (a column of `indent` characters), wrapped at kWidth on spaces.
std::string wrapped(const std::string& head, size_t indent, const std::string& text) {
  std::string out = padded(head, indent), word;
  size_t column = out.size();
  bool first = true;
  std::istringstream words(text);
  while (words >> word) {
    if (!first && column + 1 + word.size() > kWidth)
      out += "\n" + std::string(indent, ' '), column = indent, first = true;
    if (!first) out += ' ', ++column;
    out += word, column += word.size(), first = false;
  }
  return out + "\n";
}

// The schema as a reader knows it, wrapped between arguments:
// "add.Tensor(Tensor self, Tensor other, *, Scalar alpha)".
std::string signature(const Spec& spec) {
  std::string s = spec.op() + "(";
  const size_t indent = s.size();
  size_t column = s.size();
  bool keywords = false;
  for (size_t i = 0; i < spec.args().size(); ++i) {
    const auto& a = spec.args()[i];
    std::string item = a.keyword && !std::exchange(keywords, true) ? "*, " : "";
    item += std::string(name(a.type)) + " " + a.name;
    item += i + 1 < spec.args().size() ? "," : ")";
    if (i && column + 1 + item.size() > kWidth) s += "\n" + std::string(indent, ' '), column = indent;
    else if (i) s += ' ', ++column;
    s += item, column += item.size();
  }
  return spec.args().empty() ? s + ")" : s;
}

// What a constraint or joint constraint is to the op, when it is not a plain rule.
std::string tag(Role role, const DeviationRef& d) {
  switch (role) {
    case Role::Rule: return "";
    case Role::Scope: return "  [scope]";
    case Role::Avoid: return "  [avoid: " + d->id + "]";
    case Role::Unchecked: return "  [unchecked: " + d->id + "]";
  }
  return "";
}

bool any_tagged(const Spec& spec) {
  for (const auto* list : {&spec.args(), &spec.outs()})
    for (const auto& a : *list)
      for (const auto& c : a.constraints)
        if (c.role != Role::Rule) return true;
  for (const auto& j : spec.joints())
    if (j.role != Role::Rule) return true;
  return false;
}

// Each argument on a line (name, ArgType, flags, dependencies), its constraints under it grouped
// by attribute in the order they are solved, each as its label.
void print_arguments(const std::vector<ArgSpec>& args, bool outs, std::ostream& out) {
  size_t name_w = 0, type_w = 0, flags_w = 0;
  auto flags = [outs](const ArgSpec& a) {
    std::vector<std::string> f;
    if (is_optional(a.type)) f.push_back("optional");
    if (a.keyword && !outs) f.push_back("keyword");
    if (outs) f.push_back("out");
    return joined(f);
  };
  for (const auto& a : args) {
    name_w = std::max(name_w, a.name.size());
    type_w = std::max(type_w, name(a.type).size());
    flags_w = std::max(flags_w, flags(a).size());
  }
  for (const auto& a : args) {
    std::string line = "  " + padded(a.name, name_w) + "  " + padded(std::string(name(a.type)), type_w);
    if (flags_w) line += "  " + padded(flags(a), flags_w);
    if (!a.dependency_names.empty()) line += "  deps " + joined(a.dependency_names);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    for (A attr : hierarchy(a.type)) {
      std::string head = lower(name(attr));
      for (const auto& c : a.constraints) {
        if (c.attribute != attr) continue;
        out << "      " << padded(std::exchange(head, ""), 8) << "  " << c.label << tag(c.role, c.deviation) << "\n";
      }
    }
  }
}

void print_joints(const Spec& spec, std::ostream& out) {
  if (spec.joints().empty()) return;
  out << "\njoint constraints (over several arguments or the entries of a list, solved together):\n";
  for (const auto& j : spec.joints()) out << "      " << j.label << tag(j.role, j.deviation) << "\n";
}

// Each deviation once, with every place the spec marks it.
void print_deviations(const Spec& spec, std::ostream& out) {
  auto sites = spec.deviations();
  if (sites.empty()) return;
  out << "\ndeviations (where the linked kernel departs from the contract; --config contract generates them,\n"
         "and samples then list the ones they hit):\n";
  std::vector<const Deviation*> seen;
  for (const auto& site : sites) {
    const Deviation* d = site.deviation.get();
    if (std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
    seen.push_back(d);
    out << "  " << d->id << "\n" << wrapped("    reason", 14, d->reason);
    for (const auto& other : sites) {
      if (other.deviation.get() != d) continue;
      out << (other.role == Role::Unchecked ? "    unchecked " : "    avoid     ") << other.where << "\n";
    }
    out << "    command   " << d->command << "\n";
  }
}

// The spec's Scope constraints and generation scopes (contiguous layouts, ascending values), then
// the limits of the default configuration on its arguments, as `check` reports them.
void print_scope(const Spec& spec, std::ostream& out) {
  std::vector<std::string> lines;
  for (const auto& a : spec.args()) {
    for (const auto& c : a.constraints)
      if (c.role == Role::Scope) lines.push_back(c.label);
    if (!a.layout_scope.empty()) lines.push_back(a.name + " is contiguous (" + a.layout_scope + ")");
    if (!a.order_scope.empty()) lines.push_back(a.name + " ascends (" + a.order_scope + ")");
  }
  for (const auto& j : spec.joints())
    if (j.role == Role::Scope) lines.push_back(j.label);

  const Config cfg;
  AttributeEngine attrs(cfg);
  std::vector<std::string> limits;
  bool tensors = false;
  for (const auto& a : spec.args()) {
    tensors |= has_tensors(a.type);
    for (A attr : hierarchy(a.type))
      if (attr == A::Rank || attr == A::Size || attr == A::Length)
        limits.push_back(a.subject(attr) + " in " + attrs.universe(a.type, attr, MetaArg{}).to_string());
  }
  // Values are left out, as `check` leaves them out: the bounds of values no rule bounds say
  // nothing about an input.
  if (tensors)
    limits.insert(limits.begin(), "tensors' dtypes in " +
                                      attrs.universe(ArgType::Tensor, A::Dtype, MetaArg{}).to_string() +
                                      " (half adds float16, bfloat16; complex adds complex64, complex128)");
  if (lines.empty() && limits.empty()) return;
  out << "\noutside the generation scope (never generated; not rules: an input there is not invalid):\n";
  for (const auto& l : lines) out << "  " << l << "\n";
  if (limits.empty()) return;
  out << "  the configuration's limits (zerodim, empty, half and complex widen them):\n";
  for (const auto& l : limits) out << "    " << l << "\n";
}

// What a configuration word can change in one argument, as seen in solved tuples.
enum Seen : uint8_t {
  RankZero,
  SizeZero,
  Half,
  Complex,
  Transposable,
  Strided,
  ChannelsLast,
  NotBool,
  Floating,
  Integral,
  kSeen
};

// Which arguments each configuration word reaches: seen in the valid tuples the engine solves
// (metas only, no tensor is made) for every task of its plan, a few variants each, under the
// configuration that widens the limits (half, complex, empty; zerodim is on by default), and again
// under the contract: an argument reached only there (its Avoid constraints or contiguous deviation
// off) is marked so. What the rules that read other arguments allow is seen, not guessed; so are
// the dtypes of each argument's tensors (or its ScalarType values).
class Reach {
 public:
  explicit Reach(const Spec& spec) : spec_(spec) {
    for (int contract = 0; contract < 2; ++contract) {
      seen_[contract].assign(spec.args().size(), {});
      dtypes_[contract].assign(spec.args().size(), {});
      observe(Config::parse(contract ? "half,complex,empty,contract" : "half,complex,empty"), seen_[contract],
              dtypes_[contract]);
    }
  }

  // "float32, float64, complex64 (under contract)": the dtypes seen in argument i (bool, integral,
  // floating, complex); empty for an argument without tensors or dtypes.
  std::vector<std::string> dtypes(size_t i) const {
    std::vector<std::string> out;
    for (c10::ScalarType t : real_and_complex_dtypes())
      if (dtypes_[1][i].contains(t))
        out.push_back(std::string(name(t)) + (dtypes_[0][i].contains(t) ? "" : " (under contract)"));
    return out;
  }

  // "self, other, bias (under contract)": the arguments where `what` was seen.
  std::vector<std::string> arguments(Seen what) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < spec_.args().size(); ++i) {
      if (seen_[0][i][what]) out.push_back(spec_.args()[i].name);
      else if (seen_[1][i][what]) out.push_back(spec_.args()[i].name + " (under contract)");
    }
    return out;
  }

 private:
  static constexpr int kVariants = 4;  // tuples per task: its first candidates
  using Flags = std::array<bool, kSeen>;
  using Dtypes = std::set<c10::ScalarType>;

  void observe(const Config& cfg, std::vector<Flags>& seen, std::vector<Dtypes>& dtypes) const {
    MetaArgTupleEngine engine(spec_, cfg);
    Rng rng(0);
    MetaTuple tuple;
    for (const Task& task : engine.valid_tasks()) {
      // A dtype focus enumerates its argument's dtypes, one per variant: all of them are seen.
      int variants = kVariants;
      for (int variant = 0; variant < variants; ++variant) {
        try {
          if (!engine.solve(task, variant, rng, nullptr, tuple)) continue;  // a dead end: the next one
        } catch (const std::exception&) {
          continue;  // a spec that cannot generate: `generate` names why; describe says what it can
        }
        if (task.attribute == Attribute::Dtype) variants = std::max(variants, tuple.variants);
        for (size_t i = 0; i < tuple.metas.size(); ++i) note(tuple.metas[i], seen[i], dtypes[i]);
      }
    }
  }

  static void note(const MetaArg& m, Flags& f, Dtypes& dtypes) {
    if (m.none) return;
    auto note_dtype = [&](c10::ScalarType t) {
      dtypes.insert(t);
      f[Half] = f[Half] || is_half(t);
      f[Complex] = f[Complex] || c10::isComplexType(t);
    };
    if (is_scalar_type(m.argtype)) note_dtype(std::get<c10::ScalarType>(m.value));
    for (const TensorMeta& t : m.tensors) {
      if (t.none) continue;
      note_dtype(t.dtype);
      const auto rank = t.shape.size();
      f[RankZero] = f[RankZero] || rank == 0;
      f[SizeZero] = f[SizeZero] || std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end();
      // TensorGenerator::relayout: transposed and permuted layouts need two dims, channels-last four or five
      f[Transposable] = f[Transposable] || (!t.contiguous && rank >= 2);
      f[Strided] = f[Strided] || (!t.contiguous && rank >= 1);
      f[ChannelsLast] = f[ChannelsLast] || (!t.contiguous && (rank == 4 || rank == 5));
      f[NotBool] = f[NotBool] || t.dtype != c10::ScalarType::Bool;
      f[Floating] = f[Floating] || is_floating(t.dtype);
      f[Integral] = f[Integral] || is_integral(t.dtype);
    }
  }

  const Spec& spec_;
  std::vector<Flags> seen_[2];     // by argument: without and with the contract
  std::vector<Dtypes> dtypes_[2];  // the same
};

void print_dtypes(const Spec& spec, const Reach& reach, std::ostream& out) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  size_t width = 0;
  for (size_t i = 0; i < spec.args().size(); ++i)
    if (auto d = reach.dtypes(i); !d.empty()) {
      width = std::max(width, spec.args()[i].name.size());
      rows.emplace_back(spec.args()[i].name, std::move(d));
    }
  if (rows.empty()) return;
  out << "\ndtypes (of valid samples, as seen in the tuples the engine solves under half,complex):\n";
  for (const auto& [arg, dtypes] : rows) out << wrapped("  " + arg, width + 4, joined(dtypes));
}

void print_configs(const Spec& spec, const Reach& reach, std::ostream& out) {
  out << "\nconfigs (--config WORDS; the arguments each word reaches, as seen in the tuples the engine solves):\n";
  auto line = [&out](const char* word, const std::vector<std::string>& reached, const std::string& what,
                     const std::string& none) {
    out << wrapped("  " + std::string(word), 17, reached.empty() ? "- (" + none + ")" : what + joined(reached));
  };
  const bool tensors =
      std::any_of(spec.args().begin(), spec.args().end(), [](const ArgSpec& a) { return has_tensors(a.type); });
  auto unless = [&](const char* why) { return std::string(tensors ? why : "no tensor argument"); };
  line("zerodim", reach.arguments(RankZero), "(on by default) rank-0 ", unless("no tensor is rank 0"));
  line("empty", reach.arguments(SizeZero), "sizes of 0 in ", unless("no tensor has a size of 0"));
  line("half", reach.arguments(Half), "float16 and bfloat16 for ", "no argument takes float16 or bfloat16");
  line("complex", reach.arguments(Complex), "complex64 and complex128 for ",
       "no argument takes complex64 or complex128");
  const std::string layout = unless("no tensor is laid out otherwise");
  line("transposed", reach.arguments(Transposable), "the last two dims swapped in ", layout);
  line("permuted", reach.arguments(Transposable), "dims permuted in ", layout);
  line("strided", reach.arguments(Strided), "every other element of a wider tensor for ", layout);
  line("channels_last", reach.arguments(ChannelsLast), "channels-last layouts of ", layout);
  line("extremes", reach.arguments(NotBool), "the values of ", unless("only bool tensors"));
  line("rounding", reach.arguments(Floating), "the values of ", unless("no float tensor"));
  line("integral", reach.arguments(Integral), "the values of ", unless("no integer tensor"));

  std::vector<std::string> ids;
  for (const auto& site : spec.deviations())
    if (std::find(ids.begin(), ids.end(), site.deviation->id) == ids.end()) ids.push_back(site.deviation->id);
  size_t unchecked = std::count_if(spec.joints().begin(), spec.joints().end(),
                                   [](const JointConstraint& j) { return j.role == Role::Unchecked; });
  for (const ArgSpec& a : spec.args())
    for (const Constraint& c : a.constraints) unchecked += c.role == Role::Unchecked;
  std::string does;
  if (unchecked) does += "breaks " + std::to_string(unchecked) + " unchecked rule(s), ";
  if (!spec.unchecked_inputs().empty())
    does += "breaks rules on " + std::to_string(spec.unchecked_inputs().size()) +
            " kind(s) of inputs the kernel "
            "does not check them on, ";
  line("contract", ids, does + (does.empty() ? "generates deviations " : "and generates deviations "),
       "the spec marks no deviation");
  std::vector<std::string> joints;
  if (!spec.joints().empty())
    joints.push_back(std::to_string(spec.joints().size()) + " joint constraint" +
                     (spec.joints().size() > 1 ? "s" : "") + " (" +
                     (have_z3() ? "z3" : "sampling, a build without Z3") + " by default)");
  line("z3, sampling", joints, "how it solves ", "no joint constraint");
}

}  // namespace

std::string describe_spec(const Spec& spec) {
  std::ostringstream out;
  size_t rules = 0, unchecked = 0, joint = 0, scopes = 0;
  auto count = [&](Role role, bool is_joint) {
    rules += opsfuzz::negatable(role, true), unchecked += role == Role::Unchecked, scopes += role == Role::Scope;
    joint += is_joint && opsfuzz::negatable(role, true);
  };
  for (const auto& a : spec.args())
    for (const auto& c : a.constraints) count(c.role, false);
  for (const auto& j : spec.joints()) count(j.role, true);
  std::vector<std::string> ids;
  for (const auto& site : spec.deviations())
    if (std::find(ids.begin(), ids.end(), site.deviation->id) == ids.end()) ids.push_back(site.deviation->id);
  auto plural = [](size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  out << signature(spec) << "\n  " << plural(rules, "rule") << " an invalid sample can break (" << joint << " joint, "
      << unchecked << " only under contract), " << plural(ids.size(), "deviation") << ", "
      << plural(scopes, "scope constraint") << "\n";
  out << "\narguments in schema order, each rule under its attribute as the label its invalid samples carry:\n";
  print_arguments(spec.args(), false, out);
  if (!spec.outs().empty()) {
    out << "\nout= arguments (generated with generate --out, never broken):\n";
    print_arguments(spec.outs(), true, out);
  }
  print_joints(spec, out);
  if (any_tagged(spec))
    out << "\n  [scope] narrows generation and is never broken; [avoid: D] valid samples keep to it unless under "
           "contract;\n  [unchecked: D] a rule the kernel does not check, broken only under contract\n";
  print_deviations(spec, out);
  print_scope(spec, out);
  const Reach reach(spec);
  print_dtypes(spec, reach, out);
  print_configs(spec, reach, out);
  return out.str();
}

int describe_ops(const std::vector<std::string>& ops, const std::vector<std::string>& globs, std::ostream& out) {
  const char* sep = "";
  for (const Spec* spec : select_specs(OpSelection{ops, globs}))
    out << std::exchange(sep, "\n") << describe_spec(*spec);
  return 0;
}

std::shared_ptr<void> add_describe_command(CLI::App& app, std::function<int()>& command, std::ostream& out) {
  auto selection = std::make_shared<OpSelection>();
  auto* cmd = app.add_subcommand(
      "describe",
      "a spec as its reader needs it: its arguments (ArgType, flags, dependencies) with every rule by attribute, as "
      "the label an invalid sample breaking it carries; joint constraints; deviations with their commands; what lies "
      "outside the generation scope; the configuration words that reach its arguments");
  cmd->footer(
      "A family builder writes a spec in one line (binary(\"add.Tensor\", {.alpha = true, .out = true})); describe "
      "prints what it built. Tags after a label: [scope] narrows generation and is never broken, [avoid: D] keeps "
      "valid samples out of deviation D unless --config contract, [unchecked: D] is a rule the kernel does not "
      "check (broken only under contract). Which arguments a config word reaches is seen in the valid tuples the "
      "engine solves for each task of its plan (its first candidates), with half and empty on, and again under the "
      "contract.");
  cmd->add_option("OP", selection->ops, "ops of the SpecDB by name (every op when none is named)");
  cmd->add_option("--ops", selection->globs, "ops by glob, comma-separated: 'add.*,sub.*'")->delimiter(',');
  cmd->callback([&command, selection, &out] {
    command = [selection, &out] { return describe_ops(selection->ops, selection->globs, out); };
  });
  return selection;
}

}  // namespace opsfuzz
