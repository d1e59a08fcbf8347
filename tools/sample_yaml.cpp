#include "tools/sample_yaml.h"

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "argtypes/names.h"
#include "suite/model.h"
#include "suite/value.h"

namespace opsfuzz {

namespace {

template <size_t Bytes> using Unsigned =
    std::conditional_t<Bytes == 2, uint16_t, std::conditional_t<Bytes == 4, uint32_t, uint64_t>>;

template <class T> uint64_t bits_of(T x) { return std::bit_cast<Unsigned<sizeof(T)>>(x); }

// The double a decimal written by yaml_float reads back as (the loader's strtod, correctly rounded).
double read_back(const std::string& text) {
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);
  return d;
}

std::string quoted(const std::string& s) { return '"' + suite::escaped(s, '"') + '"'; }

// Plain when YAML reads the word back as this string (not yes, null, 1e5, ...), quoted otherwise.
std::string yaml_string(const std::string& s) {
  bool word = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
              std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
  suite::YamlValue back = suite::resolve_plain_scalar(s);
  return word && back.is_string() && back.s == s ? s : quoted(s);
}

// A floating element: the shortest decimal that the loader reads back (as a float64, then cast to
// T as the materializer casts it) to the same bits; .inf, -.inf; .nan for the NaN the loader makes
// of it, the bits of any other NaN.
template <class T> std::string float_text(T x) {
  static const uint64_t default_nan = bits_of(static_cast<T>(std::numeric_limits<double>::quiet_NaN()));
  double d = static_cast<double>(x);
  if (std::isnan(d)) return bits_of(x) == default_nan ? ".nan" : quoted(suite::bits_text(bits_of(x), sizeof(T)));
  if constexpr (!std::is_same_v<T, double>)
    for (int digits = 1; digits < 17 && std::isfinite(d); ++digits) {
      std::string text = suite::yaml_float(d, digits);
      if (bits_of(static_cast<T>(read_back(text))) == bits_of(x)) return text;
    }
  return suite::yaml_float(d);  // reads back as d exactly, which casts back to x exactly
}

template <class T> std::string element_text(T x) {
  if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
  else if constexpr (std::is_integral_v<T>) return std::to_string(static_cast<int64_t>(x));
  else return float_text(x);
}

// The elements of a contiguous real tensor, in order.
std::vector<std::string> element_texts(const at::Tensor& t) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(t.numel()));
  AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, t.scalar_type(), "yaml_elements", [&] {
    const scalar_t* data = t.data_ptr<scalar_t>();
    for (int64_t k = 0; k < t.numel(); ++k) out.push_back(element_text(data[k]));
  });
  return out;
}

// Texts nested as the shape says: [[a, b], [c, d]].
void nest(const std::vector<std::string>& texts, at::IntArrayRef shape, size_t dim, size_t& next, std::string& out) {
  if (dim == shape.size()) {
    out += texts[next++];
    return;
  }
  out += '[';
  for (int64_t k = 0; k < shape[dim]; ++k) {
    if (k) out += ", ";
    nest(texts, shape, dim + 1, next, out);
  }
  out += ']';
}

std::string joined(const std::vector<std::string>& texts) {
  std::string out;
  for (const auto& t : texts) out += (out.empty() ? "" : ", ") + t;
  return out;
}

std::vector<std::string> texts_of(at::IntArrayRef ints) {
  std::vector<std::string> out;
  for (int64_t k : ints) out.push_back(std::to_string(k));
  return out;
}

// A non-contiguous tensor's layout, where each element has its own place in memory (an expanded
// one is written contiguous, by value): ", strides: [...]", and ", offset: n" past the start.
std::string layout_keys(const at::Tensor& t) {
  if (t.is_contiguous() || !suite::elements_apart(t.sizes().vec(), t.strides().vec())) return "";
  std::string keys = ", strides: [" + joined(texts_of(t.strides())) + "]";
  if (t.storage_offset() > 0) keys += ", offset: " + std::to_string(t.storage_offset());
  return keys;
}

// A complex tensor's elements are [real, imaginary] pairs: its real view, one dim more.
std::string tensor_node(const at::Tensor& tensor) {
  at::Tensor t = tensor.resolve_conj().resolve_neg();
  at::Tensor real = (t.is_complex() ? at::view_as_real(t) : t).contiguous();
  std::string value;
  size_t next = 0;
  nest(element_texts(real), real.sizes(), 0, next, value);
  std::string dtype(name(t.scalar_type()));
  if (t.dim() == 0) return "{type: scalar_tensor, dtype: " + dtype + ", value: " + value + "}";
  return "{type: const_tensor, shape: [" + joined(texts_of(t.sizes())) + "], dtype: " + dtype + layout_keys(t) +
         ", value: " + value + "}";
}

// The value as a YAML literal, for a const node to carry: numbers, bools, strings, None and lists of
// them; nullopt for a value that needs a node of its own (a tensor, a NaN that .nan does not give,
// a list holding one) or that the format has no form for.
std::optional<std::string> literal(const c10::IValue& v) {
  if (v.isNone() || (v.isTensor() && !v.toTensor().defined())) return "null";  // undefined: an absent optional
  if (v.isBool()) return v.toBool() ? "true" : "false";
  if (v.isInt()) return std::to_string(v.toInt());
  if (v.isDouble()) {
    std::string text = float_text(v.toDouble());
    if (text.starts_with('"')) return std::nullopt;  // bits
    return text;
  }
  if (v.isString()) return yaml_string(v.toStringRef());
  if (v.isDevice()) return yaml_string(v.toDevice().str());
  if (!v.isList() && !v.isTuple()) return std::nullopt;
  std::vector<std::string> texts;
  for (const auto& item : v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec()) {
    auto text = literal(item);
    if (!text) return std::nullopt;
    texts.push_back(*text);
  }
  return "[" + joined(texts) + "]";
}

// opdiff takes no literal where a node is expected: a literal goes in a const node, which the
// loader reads as the same value.
std::string const_node(const std::string& literal_text) { return "{type: const, value: " + literal_text + "}"; }

// An enum argument by its name when the name reads back as it, by its number otherwise.
template <class Enum, class Parse> std::string enum_text(int64_t v, Parse parse) {
  auto e = static_cast<Enum>(v);
  std::string word(name(e));
  auto back = parse(word);
  return back && *back == e ? word : std::to_string(v);
}

std::string test_comments(const Sample& s, const YamlOrigin& origin) {
  std::string config = origin.config.empty() ? "default" : origin.config;
  std::string command = "ops-fuzz generate " + s.op + " --seed " + std::to_string(origin.seed) + " --index " +
                        std::to_string(s.index) + (origin.invalid ? " --invalid" : "") +
                        (origin.config.empty() ? "" : " --config " + origin.config) + " --format yaml";
  std::string out = "  # " + s.op + (s.valid ? " valid" : " invalid") + " sample " + std::to_string(s.index) +
                    " of seed " + std::to_string(origin.seed) + ", config " + config + ": " + command + "\n";
  auto one_line = [](std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
  };
  if (!s.valid) out += "  # violates: " + one_line(s.violated) + "\n";
  if (!s.deviations.empty()) {
    std::string ids;
    for (const auto& d : s.deviations) ids += (ids.empty() ? "" : ", ") + d;
    out += "  # deviations: " + one_line(ids) + "\n";
  }
  return out;
}

}  // namespace

std::string yaml_node(const c10::IValue& v) {
  if (auto text = literal(v)) return const_node(*text);
  if (v.isTensor()) return tensor_node(v.toTensor());
  // A Python float whose NaN .nan does not give: a scalar node holding its bits.
  if (v.isDouble()) return "{type: scalar, dtype: float64, value: " + float_text(v.toDouble()) + "}";
  // A list holding a node: a tuple node (a const list would keep a node a mapping).
  if (v.isList() || v.isTuple()) {
    std::vector<std::string> nodes;
    for (const auto& item : v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec())
      nodes.push_back(yaml_node(item));
    return "{type: tuple, elems: [" + joined(nodes) + "]}";
  }
  throw std::invalid_argument("a " + std::string(v.tagKind()) + " value has no form in the YAML suite format");
}

std::string yaml_argument(ArgType type, const c10::IValue& v) {
  if (v.isInt() && is_scalar_type(type)) return const_node(enum_text<c10::ScalarType>(v.toInt(), parse_dtype));
  if (v.isInt() && is_memory_format(type))
    return const_node(enum_text<c10::MemoryFormat>(v.toInt(), parse_memory_format));
  if (v.isInt() && is_layout(type)) return const_node(enum_text<c10::Layout>(v.toInt(), parse_layout));
  return yaml_node(v);
}

std::string to_yaml_test(const Spec& spec, const Sample& s, const YamlOrigin& origin) {
  std::string in, kwargs;
  size_t pos = 0, kw = 0;
  for (const auto& a : spec.args()) {
    if (a.keyword) {
      kwargs += "      " + yaml_string(a.name) + ": " + yaml_argument(a.type, s.kwargs.at(kw++).second) + "\n";
    } else {
      in += "      - " + yaml_argument(a.type, s.args.at(pos++)) + "\n";
    }
  }
  std::string out = test_comments(s, origin) + "  - id: " + sample_id(s) + "\n    op: aten::" + s.op + "\n";
  if (origin.backend_seed) {  // quoted: a seed may pass int64's range
    char seed[24];
    std::snprintf(seed, sizeof seed, "0x%016llx", static_cast<unsigned long long>(*origin.backend_seed));
    out += "    backend_seed: \"" + std::string(seed) + "\"\n";
  }
  out += in.empty() ? "    in: []\n" : "    in:\n" + in;
  if (!kwargs.empty()) out += "    kwargs:\n" + kwargs;
  return out;
}

YamlSuiteWriter::YamlSuiteWriter(std::ostream& out, YamlOrigin origin) : out_(out), origin_(std::move(origin)) {
  out_ << "# Written by ops-fuzz generate --format yaml: " << (origin_.invalid ? "invalid" : "valid")
       << " samples of the SpecDB, seed " << origin_.seed << ", config "
       << (origin_.config.empty() ? "default" : origin_.config) << ".\n"
       << "# One test per sample; the comment above each names the command that regenerates it. Values are\n"
       << "# exact (docs/yaml-format.md). Every value is a node opdiff reads, except what its format cannot\n"
       << "# hold, written as ops-fuzz extends it: bfloat16 tensors, complex elements as [real, imaginary]\n"
       << "# pairs, NaNs with a sign or payload as \"bits:0x...\" (Exact values), and the layout of a\n"
       << "# non-contiguous tensor as strides and offset (Layouts; opdiff passes it contiguous).\n"
       << "tests:\n";
}

void YamlSuiteWriter::add(const Spec& spec, const Sample& s) {
  out_ << to_yaml_test(spec, s, origin_);
  ++tests_;
}

void YamlSuiteWriter::finish() {
  if (tests_ == 0) out_ << "  []\n";
  out_.flush();
}

}  // namespace opsfuzz
