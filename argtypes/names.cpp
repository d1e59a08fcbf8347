#include "argtypes/names.h"

#include <algorithm>
#include <array>
#include <utility>

namespace opsfuzz {

namespace {

std::string_view without_torch(std::string_view name) { return name.starts_with("torch.") ? name.substr(6) : name; }

template <class T, size_t N>
std::optional<T> find(const std::array<std::pair<std::string_view, T>, N>& table, std::string_view name) {
  name = without_torch(name);
  for (const auto& [n, v] : table)
    if (n == name) return v;
  return std::nullopt;
}

using T = c10::ScalarType;
// Canonical names first, in the order dtype_names() lists them; then Python's aliases.
constexpr std::array<std::pair<std::string_view, T>, 20> kDtypes = {{
    {"float16", T::Half},
    {"bfloat16", T::BFloat16},
    {"float32", T::Float},
    {"float64", T::Double},
    {"int8", T::Char},
    {"int16", T::Short},
    {"int32", T::Int},
    {"int64", T::Long},
    {"uint8", T::Byte},
    {"bool", T::Bool},
    {"complex64", T::ComplexFloat},
    {"complex128", T::ComplexDouble},
    {"half", T::Half},
    {"float", T::Float},
    {"double", T::Double},
    {"short", T::Short},
    {"int", T::Int},
    {"long", T::Long},
    {"cfloat", T::ComplexFloat},
    {"cdouble", T::ComplexDouble},
}};
constexpr size_t kCanonicalDtypes = 12;

using M = c10::MemoryFormat;
constexpr std::array<std::pair<std::string_view, M>, 4> kMemoryFormats = {{
    {"contiguous_format", M::Contiguous},
    {"preserve_format", M::Preserve},
    {"channels_last", M::ChannelsLast},
    {"channels_last_3d", M::ChannelsLast3d},
}};

using L = c10::Layout;
constexpr std::array<std::pair<std::string_view, L>, 2> kLayouts = {{
    {"strided", L::Strided},
    {"sparse_coo", L::Sparse},
}};

}  // namespace

std::optional<c10::ScalarType> parse_dtype(std::string_view name) { return find(kDtypes, name); }

std::span<const std::string> dtype_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (size_t k = 0; k < kCanonicalDtypes; ++k) out.emplace_back(kDtypes[k].first);
    return out;
  }();
  return names;
}

std::optional<c10::MemoryFormat> parse_memory_format(std::string_view name) { return find(kMemoryFormats, name); }

std::optional<c10::Layout> parse_layout(std::string_view name) { return find(kLayouts, name); }

std::string_view name(c10::MemoryFormat f) {
  for (const auto& [n, v] : kMemoryFormats)
    if (v == f) return n;
  return "memory_format?";
}

std::string_view name(c10::Layout l) {
  for (const auto& [n, v] : kLayouts)
    if (v == l) return n;
  return "layout?";
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the optimal-string-alignment table: i-2, i-1 and i.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

size_t typo_distance(std::string_view word) { return std::max<size_t>(2, word.size() / 3); }

std::vector<std::string> closest(std::string_view word, std::span<const std::string> candidates, size_t n,
                                 size_t max_distance) {
  std::vector<std::pair<size_t, size_t>> scored;  // (distance, index)
  for (size_t k = 0; k < candidates.size(); ++k) {
    // Lengths differing by more than max_distance cannot be close: skip the table.
    size_t a = word.size(), b = candidates[k].size();
    if ((a > b ? a - b : b - a) > max_distance) continue;
    size_t d = edit_distance(word, candidates[k]);
    if (d <= max_distance) scored.emplace_back(d, k);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (size_t k = 0; k < scored.size() && out.size() < n; ++k) out.push_back(candidates[scored[k].second]);
  return out;
}

std::vector<std::string> closest(std::string_view word, std::span<const std::string> candidates, size_t n) {
  return closest(word, candidates, n, typo_distance(word));
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates, size_t n) {
  return suggestion(closest(word, candidates, n));
}

std::string suggestion(std::span<const std::string> best) {
  if (best.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t k = 0; k < best.size(); ++k) {
    if (k) out += k + 1 == best.size() ? " or " : ", ";
    out += "'" + best[k] + "'";
  }
  return out + "?)";
}

}  // namespace opsfuzz
