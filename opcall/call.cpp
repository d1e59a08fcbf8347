// The call, its outcome, and c10 error backtraces.
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Backtrace.h>
#include <c10/util/Logging.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <atomic>

#include "opcall/impl.h"

namespace opsfuzz::opcall {

Stack Op::call(Stack stack) const {
  if (impl_->handle) impl_->handle->callBoxed(stack);
  else (*impl_->operation)(stack);  // operators that exist only for TorchScript (add.int)
  return stack;
}

Stack call(std::string_view name, const Stack& args, const Kwargs& kwargs) {
  Resolved r = resolve(name, args, kwargs);
  return r.op->call(std::move(r.stack));
}

c10::IValue to_python(Stack outputs) {
  if (outputs.empty()) return c10::IValue();
  if (outputs.size() == 1) return std::move(outputs[0]);
  return c10::ivalue::Tuple::create(std::move(outputs));
}

std::string_view name(CallOutcome::Kind k) {
  static constexpr std::string_view names[] = {"accepted", "rejected", "bind error", "crashed", "timed out"};
  return k < CallOutcome::kinds ? names[k] : "?";
}

namespace {

// The kernel's part: the call of a bound stack, classified.
CallOutcome run(const Op& op, Stack stack, Stack* outputs) {
  try {
    Stack out = op.call(std::move(stack));
    if (outputs) *outputs = std::move(out);
    return {CallOutcome::Accepted, {}};
  } catch (const c10::Error& e) {
    return {CallOutcome::Rejected, e.what_without_backtrace()};
  } catch (const std::exception& e) { return {CallOutcome::Rejected, e.what()}; }
}

}  // namespace

CallOutcome try_call(std::string_view name, const Stack& args, const Kwargs& kwargs, Stack* outputs) {
  Resolved r{nullptr, {}};
  try {
    r = resolve(name, args, kwargs);
  } catch (const std::invalid_argument& e) {  // LookupError, BindError
    return {CallOutcome::BindError, e.what()};
  } catch (const c10::Error& e) {  // a name the registry refuses
    return {CallOutcome::BindError, e.what_without_backtrace()};
  }
  return run(*r.op, std::move(r.stack), outputs);
}

CallOutcome try_call(const Op& op, const Stack& args, const Kwargs& kwargs, Stack* outputs) {
  Stack stack;
  if (auto why = op.try_bind(args, kwargs, stack)) return {CallOutcome::BindError, *why};
  return run(op, std::move(stack), outputs);
}

namespace {
std::atomic<bool> backtraces_on{true};
}

void set_backtraces(bool on) {
  if (on) c10::SetStackTraceFetcher([] { return c10::get_backtrace(/*frames_to_skip=*/1); });
  else c10::SetStackTraceFetcher([] { return std::string(); });
  backtraces_on = on;
}

bool backtraces() { return backtraces_on; }

std::string message_of(const std::exception& e) {
  const auto* error = dynamic_cast<const c10::Error*>(&e);
  return error ? error->what_without_backtrace() : e.what();
}

namespace {
// Drops kernel warnings (deprecation notices and the like): they are not results of a call.
struct QuietWarnings : c10::WarningHandler {
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
};
}  // namespace

void set_kernel_warnings(bool on) {
  static QuietWarnings quiet;
  static c10::WarningHandler* const printing = c10::Warning::get_warning_handler();
  c10::Warning::set_warning_handler(on ? printing : &quiet);
}

}  // namespace opsfuzz::opcall
