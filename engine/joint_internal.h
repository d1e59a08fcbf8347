// What the files of the joint solver share (see joint.h): joint_program.cpp compiles terms to
// programs, joint_evaluation.cpp evaluates them (congruences, partial evaluation),
// joint_forward.cpp checks drawn values forward and keeps the witness, joint_search.cpp repairs
// the witness by local search. Not part of the engine's interface.
#pragma once

#include "engine/joint.h"

#include <algorithm>
#include <span>

namespace opsfuzz {

inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a mod b with the sign of b (the solver's), b nonzero.
inline int64_t floor_mod(int64_t a, int64_t b) { return a - b * floor_div(a, b); }

inline bool is_fold(TermOp op) { return op >= TermOp::Sum; }

// The bodies fold n reads when its count slot holds `count`: those of indices n.value to
// count - 1, at most n.count of them.
inline std::span<const int> bodies_read(const Program::Node& n, int64_t count, const int* kids) {
  return {kids + n.first, static_cast<size_t>(std::clamp<int64_t>(count - n.value, 0, n.count))};
}

}  // namespace opsfuzz
