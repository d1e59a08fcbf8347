#include "generators/execute.h"

namespace opsfuzz {

CallOutcome execute(const Sample& sample) {
  const opcall::Op* op = nullptr;
  try {
    op = &opcall::find_op(sample.op);
  } catch (const std::invalid_argument& e) {  // opcall::LookupError
    return {CallOutcome::BindError, e.what()};
  }
  return opcall::try_call(*op, sample.args, sample.kwargs);
}

std::vector<CallOutcome> execute_isolated(const std::vector<Sample>& samples, double timeout_s, bool backtraces) {
  // Look the ops up here, once: every worker inherits them instead of looking them up again after
  // each crash. Unknown ones are reported by execute, as BindErrors.
  for (const auto& s : samples) {
    try {
      opcall::find_op(s.op);
    } catch (const std::invalid_argument&) {
    }
  }
  return opcall::run_isolated(
      samples.size(), [&](size_t i) { return execute(samples[i]); }, timeout_s, backtraces);
}

}  // namespace opsfuzz
