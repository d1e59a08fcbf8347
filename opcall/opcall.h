// One way to call an operator by name: the name parsed, its schema looked up (cached), the
// arguments bound by Python's rules, the call through the c10 dispatcher (or TorchScript's
// registry for operators that exist only there, like aten::add.int), the outcome classified, and
// isolated worker processes that survive a crashing or hanging kernel.
//
//   auto out = opcall::call("add.Tensor", {x, y}, {{"alpha", 2}});       // throws on failure
//   opcall::CallOutcome o = opcall::try_call("mm.default", {a, b});       // never throws
//   auto all = opcall::run_isolated(n, [&](size_t i) { return opcall::try_call(...); }, 10);
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opsfuzz::opcall {

using Stack = std::vector<c10::IValue>;
using Kwargs = std::vector<std::pair<std::string, c10::IValue>>;

// ---------------------------------------------------------------------------------- names

// An operator name: namespace, name and overload.
struct OpName {
  std::string ns = "aten";
  std::string name;
  // "" is the default overload ("abs.default"); nullopt: none was given ("aten::add").
  std::optional<std::string> overload;

  std::string qualified() const;  // "aten::add"
  std::string str() const;        // "aten::add.Tensor"; "aten::abs" for the default overload
};

// "add.Tensor" and "aten::add.Tensor" -> {aten, add, "Tensor"}; "abs.default" -> {aten, abs, ""};
// "aten::add" and "add" -> {aten, add, nullopt}. Throws LookupError on a malformed name.
OpName parse_name(std::string_view text);

// ---------------------------------------------------------------------------------- errors

// An operator or overload that does not exist, or a malformed name. The message suggests close
// names ("did you mean") and lists an operator's overloads.
class LookupError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Arguments that do not fit a signature: too many positionals, an unknown or repeated keyword,
// a missing argument, a value of the wrong type. The message names the operator and argument.
class BindError : public std::invalid_argument {
 public:
  BindError(std::string op, std::string argument, const std::string& message)
      : std::invalid_argument(message), op_(std::move(op)), argument_(std::move(argument)) {}
  const std::string& op() const { return op_; }              // "aten::add.Tensor"
  const std::string& argument() const { return argument_; }  // "other"; "" if not one argument

 private:
  std::string op_, argument_;
};

// ---------------------------------------------------------------------------------- binding

// One parameter of a Python signature.
struct Parameter {
  std::string_view name;
  const c10::IValue* default_value = nullptr;  // required when null
  bool keyword_only = false;
};

// Binds arguments to parameters by Python's rules: positionals fill the parameters that are not
// keyword-only, in order (extra positionals go to *rest when given — a *args parameter — and are
// an error otherwise); keywords by name; defaults fill the rest. Returns one value per parameter.
// Throws BindError ("<what> got an unexpected keyword argument 'x' (did you mean 'y'?)", "got
// multiple values for argument", "missing required argument", "takes 2 positional arguments but
// 3 were given"). Values are not type-checked here.
Stack bind_arguments(std::string_view what, std::span<const Parameter> params, const Stack& args, const Kwargs& kwargs,
                     Stack* rest = nullptr);

// Converts v to a schema type as Python's binding would, or nullopt when it does not fit: an int
// for a float; dtype, memory-format, layout and device names ("float64", "torch.channels_last",
// "cpu") for their enums; a list or tuple for a list type, element by element, as the typed list
// the kernel unboxes (int[] and SymInt[] as c10::List<int64_t>, float[] as c10::List<double>,
// bool[] as c10::List<bool>, Tensor[] as c10::List<at::Tensor>, Tensor?[] as
// c10::List<c10::optional<at::Tensor>>); a single int for int[N] (repeated N times).
std::optional<c10::IValue> coerce(const c10::IValue& v, const c10::TypePtr& type,
                                  std::optional<int32_t> fixed_size = std::nullopt);

// How a value reads in messages: "Tensor", "int", "None", "List[int]".
std::string describe(const c10::IValue& v);

// ---------------------------------------------------------------------------------- operators

// One operator overload. Cheap to copy; the ones lookups return live as long as the process.
class Op {
 public:
  const c10::FunctionSchema& schema() const;
  const std::string& name() const;  // "aten::add.Tensor"; "aten::abs" for a default overload
  bool in_dispatcher() const;       // false for operators of TorchScript only (aten::add.int)

  // The complete stack for this schema (Python's rules, then types checked and converted).
  // Throws BindError naming this op and the argument.
  Stack bind(const Stack& args, const Kwargs& kwargs = {}) const;
  // Same, returning why instead of throwing; `out` holds the stack on success.
  std::optional<std::string> try_bind(const Stack& args, const Kwargs& kwargs, Stack& out) const;
  // Runs a complete stack and returns the outputs. The kernel's errors propagate (c10::Error).
  Stack call(Stack stack) const;
  Stack operator()(const Stack& args, const Kwargs& kwargs = {}) const { return call(bind(args, kwargs)); }

  struct Impl;
  explicit Op(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  friend const Impl& impl_of(const Op& op);
  std::shared_ptr<const Impl> impl_;
};

// Every overload of the operator `name` names (its overload part is ignored): dispatcher
// operators in registration order, then those of TorchScript only. Cached, thread-safe. Throws
// LookupError for an unknown operator, with suggestions.
std::span<const Op> overloads(std::string_view name);
// The overload `name` names exactly; without an overload, the default one (""). Cached per
// thread. Throws LookupError for an unknown operator or overload, with suggestions.
const Op& find_op(std::string_view name);
// Whether `name` exists: the overload it names, or any overload when it names none.
bool has_op(std::string_view name);
// " (did you mean 'aten::add'?)" for an operator name close to `name`, or "".
std::string suggest_op(std::string_view name);

// The overload these arguments call, with its bound stack: the one `name` names, or without an
// overload the first of overloads(name) that accepts the arguments. Throws LookupError, or
// BindError saying why each candidate refused.
struct Resolved {
  const Op* op;
  Stack stack;
};
Resolved resolve(std::string_view name, const Stack& args, const Kwargs& kwargs = {});

// resolve, then the call: the outputs. Throws LookupError, BindError or the kernel's error.
Stack call(std::string_view name, const Stack& args, const Kwargs& kwargs = {});
// Outputs as Python returns them: None for none, the one result, or a tuple.
c10::IValue to_python(Stack outputs);

// ---------------------------------------------------------------------------------- outcomes

// What one call came to.
struct CallOutcome {
  enum Kind : uint8_t { Accepted, Rejected, BindError, Crashed, TimedOut } kind = Accepted;
  static constexpr size_t kinds = 5;
  std::string message;  // the kernel's error (no backtrace), the binding error, or the signal
};
// "accepted", "rejected", "bind error", "crashed", "timed out".
std::string_view name(CallOutcome::Kind k);

// Looks up, binds and calls without throwing for problems of the call: a lookup or binding
// failure is a BindError (never a Rejected), an exception from the kernel is Rejected. The
// outputs go to *outputs when given.
CallOutcome try_call(std::string_view name, const Stack& args, const Kwargs& kwargs = {}, Stack* outputs = nullptr);
CallOutcome try_call(const Op& op, const Stack& args, const Kwargs& kwargs = {}, Stack* outputs = nullptr);

// c10 errors capture a symbolized backtrace when built, ~6 ms each: turning that off makes
// rejected calls ~200x cheaper. Process-wide; do not switch while other threads may throw.
void set_backtraces(bool on);
bool backtraces();
// An exception's message: a c10 error's without its backtrace, any other's what().
std::string message_of(const std::exception& e);
// Kernel warnings (TORCH_WARN: deprecations, ...) are printed to stderr unless turned off.
// Process-wide; isolated workers turn them off.
void set_kernel_warnings(bool on);

// ---------------------------------------------------------------------------------- isolation

// Seconds as their shortest decimal: "10", "0.5" (for timeouts in messages).
std::string format_seconds(double s);

struct IsolationOptions {
  double timeout_s = 10;    // per item; <= 0: no limit
  bool backtraces = false;  // keep c10 error backtraces in the workers
  // Results of a live worker are held back until this many later items have run in it (or it
  // has finished): a crash found during a later item within the window is blamed on its cause.
  size_t window = 256;
  // Sees each outcome as soon as it is final, in order (to append and flush results).
  std::function<void(size_t, const CallOutcome&)> on_result;
  // Tasks known to crash on their own now and then (an out-of-range read that faults or not, as
  // the heap lies): a crash during one is its own, whatever ran before it in the worker.
  std::function<bool(size_t)> crashes_by_itself;
};

// What one isolated task came to: its bytes, or how its worker ended (the message).
struct TaskResult {
  enum Kind : uint8_t { Done, Threw, Crashed, TimedOut } kind = Done;
  std::string bytes;  // Done: the task's result; otherwise why there is none
};

// Runs task(0) ... task(n-1) in forked worker processes that each run tasks until one crashes
// or hangs; a fresh worker carries on after it. A crash is blamed on the task that caused it:
// a task whose worker died is run again alone in a fresh worker; when it survives alone, the
// heap damage came from a task before it in the same worker, found by re-running suffixes of the
// held-back window; the tasks after the culprit run again. A worker's stderr is kept off the
// terminal: the last line a dying worker wrote ends its crash's description. Workers call at::set_num_threads(1),
// turn kernel warnings off and backtraces off unless asked. Results are in task order.
std::vector<TaskResult> run_tasks(size_t n, const std::function<std::string(size_t)>& task,
                                  const IsolationOptions& options,
                                  const std::function<void(size_t, const TaskResult&)>& on_result = {});

// Runs work(0) ... work(n-1) in `jobs` forked processes side by side, each taking the next index
// when idle (work items are big: an op's sweep, a batch of a run's items, which isolate their own
// calls). `done` sees each result as it completes, in any order: Done with work's bytes, Threw, or
// Crashed when the job process died during it (a fresh job carries on).
void run_jobs(size_t n, unsigned jobs, const std::function<std::string(size_t)>& work,
              const std::function<void(size_t, const TaskResult&)>& done);

// run_tasks for calls: item(0) ... item(n-1), one outcome per item in order. A crash or hang is
// that item's Crashed or TimedOut; an exception escaping `item` is Crashed ("the item threw").
std::vector<CallOutcome> run_isolated(size_t n, const std::function<CallOutcome(size_t)>& item,
                                      const IsolationOptions& options);
std::vector<CallOutcome> run_isolated(size_t n, const std::function<CallOutcome(size_t)>& item, double timeout_s = 10,
                                      bool backtraces = false);

}  // namespace opsfuzz::opcall
