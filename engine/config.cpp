#include "engine/config.h"

#include "argtypes/argtypes.h"
#include "engine/joint.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace opsfuzz {

bool TensorConfig::allows(c10::ScalarType t) const {
  if (!half && is_half(t)) return false;
  if (!complex && c10::isComplexType(t)) return false;
  return std::find(disallowed.begin(), disallowed.end(), t) == disallowed.end();
}

size_t TensorConfig::value_profiles(ValueProfile (&out)[3]) const {
  size_t n = 0;
  if (extremes) out[n++] = ValueProfile::Extremes;
  if (rounding) out[n++] = ValueProfile::Rounding;
  if (integral) out[n++] = ValueProfile::Integral;
  return n;
}

JointStrategy default_joint_strategy() { return have_z3() ? JointStrategy::Z3 : JointStrategy::Sampling; }

std::span<const ConfigWord> config_words() {
  using W = ConfigWord;
  static const W words[] = {
      {W::Tensor, "zerodim", "rank-0 tensors (on by default)", [](Config& c, bool on) { c.tensor.zero_dim = on; }},
      {W::Tensor, "empty", "sizes of 0", [](Config& c, bool on) { c.tensor.empty = on; }},
      {W::Tensor, "half", "float16 and bfloat16", [](Config& c, bool on) { c.tensor.half = on; }},
      {W::Tensor, "complex", "complex64 and complex128", [](Config& c, bool on) { c.tensor.complex = on; }},
      {W::Tensor, "transposed", "the last two dims swapped in memory",
       [](Config& c, bool on) { c.tensor.transposed = on; }},
      {W::Tensor, "permuted", "dims permuted in memory", [](Config& c, bool on) { c.tensor.permuted = on; }},
      {W::Tensor, "strided", "every other element of a wider tensor",
       [](Config& c, bool on) { c.tensor.strided = on; }},
      {W::Tensor, "channels_last", "channels-last layouts", [](Config& c, bool on) { c.tensor.channels_last = on; }},
      {W::Tensor, "extremes", "values at the dtype's extremes, infinities, NaN, subnormals",
       [](Config& c, bool on) { c.tensor.extremes = on; }},
      {W::Tensor, "rounding", "exact halves and values near rounding boundaries",
       [](Config& c, bool on) { c.tensor.rounding = on; }},
      {W::Tensor, "integral", "integral-valued floats, integers at their bounds",
       [](Config& c, bool on) { c.tensor.integral = on; }},
      {W::Contract, "contract",
       "the op's contract without the spec's deviations: samples may hit them, and say which (list-specs --deviations)",
       [](Config& c, bool on) { c.contract = on; }},
      {W::Joint, "z3", "joint constraints solved by look-ahead (the default with Z3)",
       [](Config& c, bool) {
         if (!have_z3()) throw std::invalid_argument("config word 'z3': this build has no Z3 (OPSFUZZ_WITH_Z3=OFF)");
         c.joint = JointStrategy::Z3;
       }},
      {W::Joint, "sampling", "joint constraints sampled and retried until they hold",
       [](Config& c, bool) { c.joint = JointStrategy::Sampling; }},
  };
  return words;
}

Config Config::parse(const std::string& words) {
  const auto known = config_words();
  auto find = [&](std::string_view w) {
    return std::find_if(known.begin(), known.end(), [&](const ConfigWord& k) { return k.word == w; });
  };
  Config cfg;
  std::stringstream ss(words);
  std::string word;
  while (std::getline(ss, word, ',')) {
    if (word.empty()) continue;
    auto it = find(word);
    bool on = true;
    if (it == known.end() && word.starts_with("no")) {  // "nozerodim": a tensor word or contract, off
      it = find(std::string_view(word).substr(2));
      if (it != known.end() && it->kind == ConfigWord::Joint) it = known.end();
      on = false;
    }
    if (it == known.end()) {
      std::string list;
      for (const ConfigWord& k : known) list += (list.empty() ? "" : ", ") + std::string(k.word);
      throw std::invalid_argument("unknown config word '" + word + "' (known: " + list +
                                  "; prefix 'no' to switch one off, but sampling and z3)");
    }
    it->set(cfg, on);
  }
  return cfg;
}

}  // namespace opsfuzz
