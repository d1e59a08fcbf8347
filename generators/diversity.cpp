#include "generators/diversity.h"

#include "generators/generators.h"

#include "argtypes/rng.h"

#include <bit>
#include <cmath>
#include <utility>

namespace opsfuzz {

namespace {

// Order-sensitive: mix(mix(h, a), b) != mix(mix(h, b), a).
uint64_t mix(uint64_t h, uint64_t v) { return mix64(h ^ mix64(v)); }

// Tags keep the classes of different kinds of value apart (None vs the integer class 0, ...).
enum Tag : uint64_t {
  kNone = 1,
  kTensor,
  kTensorList,
  kNoneEntry,
  kScalar,
  kIntList,
  kInt,
  kFloat,
  kBool,
  kExact,
  kFloatList,
  kBoolList
};

uint64_t int_class(int64_t v) { return v < -1 ? 0 : v == -1 ? 1 : v == 0 ? 2 : v == 1 ? 3 : 4; }
uint64_t float_class(double v) { return std::isnan(v) ? 3 : v < 0 ? 0 : v == 0 ? 1 : 2; }
uint64_t rank_class(size_t rank) { return std::min<size_t>(rank, 6); }

uint64_t tensor_class(const TensorMeta& t) {
  if (t.none) return kNoneEntry;
  uint64_t h = mix(mix(kTensor, static_cast<uint64_t>(t.dtype)), rank_class(t.shape.size()));
  for (int64_t s : t.shape) h = mix(h, int_class(s));
  return h;
}

// A value held exactly (string, dtype, memory format, layout, device): each its own class.
uint64_t exact_class(const Value& v) {
  uint64_t h = mix(kExact, v.index());
  if (const auto* s = std::get_if<std::string>(&v)) return mix(h, std::hash<std::string>{}(*s));
  return std::visit(
      [h](const auto& x) -> uint64_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_enum_v<T>) return mix(h, static_cast<uint64_t>(x));
        else return h;  // not reached: numbers and lists are classified by their ArgType
      },
      v);
}

}  // namespace

// Read as ArgumentGenerator::generate reads a MetaArg, so that a class is the class of the value
// the op receives.
uint64_t diversity_class(const MetaArg& m) {
  if (m.none) return kNone;
  const ArgType type = m.argtype;
  if (is_tensor(type)) return tensor_class(m.tensor());
  if (is_tensor_list(type)) {
    uint64_t h = kTensorList;
    for (const auto& t : m.tensors) h = mix(h, tensor_class(t));
    return h;
  }
  if (is_scalar(type)) {
    uint64_t h = mix(kScalar, static_cast<uint64_t>(m.scalar_dtype));
    switch (m.scalar_dtype) {
      case ScalarDtype::Bool: return mix(h, as_double(m.value) != 0);
      case ScalarDtype::Int: return mix(h, int_class(as_int(m.value)));
      case ScalarDtype::Float: return mix(h, float_class(as_double(m.value)));
    }
  }
  if (is_int_list(type)) {
    uint64_t h = kIntList;
    for (int64_t v : std::get<IntList>(m.value)) h = mix(h, int_class(v));
    return h;
  }
  if (is_float_list(type)) {
    uint64_t h = kFloatList;
    for (double v : std::get<Floats>(m.value)) h = mix(h, float_class(v));
    return h;
  }
  if (is_bool_list(type)) {
    uint64_t h = kBoolList;
    for (bool v : std::get<Bools>(m.value)) h = mix(h, v);
    return h;
  }
  if (is_bool(type)) return mix(kBool, as_double(m.value) != 0);
  if (is_float(type)) return mix(kFloat, float_class(as_double(m.value)));
  if (is_int(type)) return mix(kInt, int_class(as_int(m.value)));
  return exact_class(m.value);
}

bool KeySet::insert(uint64_t key) {
  if (key == 0) return !std::exchange(has_zero_, true);
  if (2 * (size_ + 1) > slots_.size()) {  // keep the load at most 1/2
    std::vector<uint64_t> old(std::max<size_t>(64, 2 * slots_.size()), 0);
    old.swap(slots_);
    size_ = 0;
    for (uint64_t k : old)
      if (k) insert(k);
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return false;
    if (slots_[i] == 0) {
      slots_[i] = key;
      ++size_;
      return true;
    }
  }
}

bool KeySet::contains(uint64_t key) const {
  if (key == 0) return has_zero_;
  if (slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return true;
    if (slots_[i] == 0) return false;
  }
}

void KeySet::clear() {
  slots_.clear();
  size_ = 0;
  has_zero_ = false;
}

size_t DiversityCounter::observe(const Sample& s) { return observe(s.metas); }

void append_pair_keys(std::vector<uint64_t>& keys, size_t singles) {
  keys.reserve(keys.size() + singles * (singles - 1) / 2);
  // The keys of singles are mixed already: one step more makes a pair's (the rotation keeps
  // (a, b) and (b, a) apart).
  for (size_t i = 0; i < singles; ++i)
    for (size_t j = i + 1; j < singles; ++j) keys.push_back(mix64(keys[i] ^ std::rotl(keys[j], 23)));
}

std::vector<uint64_t> diversity_keys(std::span<const MetaArg> metas, std::span<const uint64_t> extra) {
  const size_t n = metas.size() + extra.size();
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i)  // (argument, class)
    keys[i] = mix(i, i < metas.size() ? diversity_class(metas[i]) : extra[i - metas.size()]);
  append_pair_keys(keys, n);
  return keys;
}

size_t DiversityCounter::observe(std::span<const MetaArg> metas) {
  const std::vector<uint64_t> keys = diversity_keys(metas);
  size_t fresh = 0;
  for (size_t k = 0; k < keys.size(); ++k) fresh += (k < metas.size() ? singles_ : pairs_).insert(keys[k]);
  return fresh;
}

}  // namespace opsfuzz
