#include "engine/config.h"

#include "argtypes/argtypes.h"
#include "engine/joint.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace opsfuzz {

bool TensorConfig::allows(c10::ScalarType t) const {
  if (!half && is_half(t)) return false;
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

Config Config::parse(const std::string& words) {
  Config cfg;
  std::stringstream ss(words);
  std::string word;
  while (std::getline(ss, word, ',')) {
    if (word.empty()) continue;
    bool on = true;
    std::string key = word;
    if (key.rfind("no", 0) == 0 && key != "none") on = false, key = key.substr(2);
    auto& t = cfg.tensor;
    if (key == "zerodim") t.zero_dim = on;
    else if (key == "empty") t.empty = on;
    else if (key == "half") t.half = on;
    else if (key == "transposed") t.transposed = on;
    else if (key == "permuted") t.permuted = on;
    else if (key == "strided") t.strided = on;
    else if (key == "channels_last") t.channels_last = on;
    else if (key == "extremes") t.extremes = on;
    else if (key == "rounding") t.rounding = on;
    else if (key == "integral") t.integral = on;
    else if (word == "sampling") cfg.joint = JointStrategy::Sampling;
    else if (key == "contract") cfg.contract = on;
    else if (word == "z3") {
      if (!have_z3()) throw std::invalid_argument("config word 'z3': this build has no Z3 (OPSFUZZ_WITH_Z3=OFF)");
      cfg.joint = JointStrategy::Z3;
    } else
      throw std::invalid_argument("unknown config word '" + word +
                                  "' (known: zerodim, empty, half, transposed, permuted, strided, "
                                  "channels_last, extremes, rounding, integral, contract; prefix 'no' to switch off; sampling or z3 for joint constraints)");
  }
  return cfg;
}

}  // namespace opsfuzz
