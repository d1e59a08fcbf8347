#include "tools/python_reproducer.h"

#include <ATen/ATen.h>

#include <map>
#include <regex>
#include <sstream>

#include "argtypes/argtypes.h"
#include "argtypes/text.h"
#include "runner/builtin.h"
#include "runner/values.h"

namespace opsfuzz {

namespace {

// The script's helpers: exact tensors, outputs walked, results compared as the oracle does.
constexpr const char* kPrelude = R"PY(import sys

import torch

torch.set_printoptions(precision=10)


def tensor(dtype, sizes, strides, data):
    """An input exactly: the bytes of the storage it spans (hex), its sizes and strides."""
    flat = torch.frombuffer(bytearray.fromhex(data), dtype=dtype) if data else torch.empty(0, dtype=dtype)
    return flat.clone().as_strided(sizes, strides)


def leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def tree_map(fn, value):
    if isinstance(value, (tuple, list)):
        return type(value)(tree_map(fn, item) for item in value)
    return fn(value) if isinstance(value, torch.Tensor) else value


def cast_like(value, like):
    """value with each floating tensor in the dtype of its counterpart in like."""
    if isinstance(value, (tuple, list)) and isinstance(like, (tuple, list)):
        return type(value)(cast_like(v, w) for v, w in zip(value, like))
    if isinstance(value, torch.Tensor) and isinstance(like, torch.Tensor) and value.dtype != like.dtype:
        return value.to(like.dtype) if like.is_floating_point() or like.is_complex() else value
    return value


def same(a, b):
    """The oracle's verdict: integral values equal, floating ones within ATOL + RTOL * |b|."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point() or a.is_complex():
            return torch.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
        return torch.equal(a, b)
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) == type(b) and (a == b or (isinstance(a, float) and abs(a - b) <= ATOL + RTOL * abs(b)))


def outcome(run):
    try:
        return run(), None
    except Exception as e:  # the discrepancy may be that one side refuses the call
        return None, e


def show(name, value, error):
    print(f"{name}:", f"{type(error).__name__}: {error}".splitlines()[0] if error else value)
)PY";

// Runs both sides and the float64 evaluation, prints them, exits 1 while they disagree.
constexpr const char* kMain = R"PY(def float64():
    wide = lambda t: t.to(torch.complex128 if t.is_complex() else torch.float64) \
        if t.is_floating_point() or t.is_complex() else t
    return call([tree_map(wide, v) for v in inputs()])


base, base_error = outcome(lambda: call(inputs()))
out, out_error = outcome(backend)
show("baseline", base, base_error)
show("backend ", out, out_error)
if base_error is not None or out_error is not None:
    kinds = {type(base_error).__name__, type(out_error).__name__} - {"RuntimeError", "JITException"}
    holds = (base_error is None) != (out_error is None) or len(kinds) == 2  # as hunt/findings.cpp compares
else:
    reference, reference_error = outcome(float64)
    show("float64 ", reference, reference_error)
    pairs = list(zip(leaves(out), leaves(base)))
    holds = len(leaves(out)) != len(leaves(base)) or not all(same(a, b) for a, b in pairs)
print("the discrepancy holds" if holds else "no discrepancy")
sys.exit(1 if holds else 0)
)PY";

// Non-contiguous copies with eager_cpu_noncontig's layouts (runner/backends_eager.cpp).
constexpr const char* kLayouts = R"PY(

def strided(t):
    """Every other element along the last dim of size > 1, from offset 1."""
    dim = max(d for d in range(t.dim()) if t.size(d) > 1)
    sizes = list(t.shape)
    sizes[dim] *= 2
    return torch.empty(sizes, dtype=t.dtype)[(slice(None),) * dim + (slice(1, None, 2),)].copy_(t)


def transposed(t):
    """A transposed contiguous buffer: the last two dims swapped in memory."""
    sizes = list(t.shape)
    sizes[-1], sizes[-2] = sizes[-2], sizes[-1]
    return torch.empty(sizes, dtype=t.dtype).transpose(-1, -2).copy_(t)


def channels_last(t):
    return torch.empty_like(t, memory_format=torch.channels_last).copy_(t)
)PY";

std::string hex_bytes(const at::Tensor& t) {
  static const char* digits = "0123456789abcdef";
  const auto* p = static_cast<const uint8_t*>(t.data_ptr());
  std::string out;
  out.reserve(t.nbytes() * 2);
  for (size_t i = 0; i < t.nbytes(); ++i) out += digits[p[i] >> 4], out += digits[p[i] & 15];
  return out;
}

std::string list_text(c10::IntArrayRef v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string dtype_text(at::ScalarType t) { return "torch." + std::string(opsfuzz::name(t)); }

// A tensor written exactly: the storage it spans (gaps zeroed), with its sizes and strides.
std::string tensor_text(const at::Tensor& t) {
  int64_t span = t.numel() == 0 ? 0 : 1;
  for (int64_t d = 0; d < t.dim() && span > 0; ++d) span += (t.size(d) - 1) * t.stride(d);
  at::Tensor storage = at::zeros({span}, t.options());
  if (span > 0) storage.as_strided(t.sizes(), t.strides()).copy_(t);
  return "tensor(" + dtype_text(t.scalar_type()) + ", " + list_text(t.sizes()) + ", " + list_text(t.strides()) +
         ", \"" + hex_bytes(storage.view(at::kByte)) + "\")";
}

std::string float_text(double v) {
  if (std::isnan(v)) return "float(\"nan\")";
  if (std::isinf(v)) return v > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  std::string s = runner::number_text(v);  // shortest round trip: Python reads the same double
  return s.find_first_of(".e") == std::string::npos ? s + ".0" : s;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

// How values are written: a tensor's text through `wrap`, given its label (a layout for the
// backend); by default as it is.
class ValueWriter {
 public:
  using Wrap = std::function<std::string(const std::string& label, std::string text)>;
  explicit ValueWriter(Wrap wrap = [](const std::string&, std::string text) { return text; })
      : wrap_(std::move(wrap)) {}

  std::string write(const c10::IValue& v, const c10::TypePtr& type, const std::string& label) {
    c10::TypePtr element = type;
    if (auto optional = type->cast<c10::OptionalType>()) element = optional->getElementType();
    if (v.isNone()) return "None";
    if (v.isTensor()) return v.toTensor().defined() ? wrap_(label, tensor_text(v.toTensor())) : "None";
    if (v.isBool()) return v.toBool() ? "True" : "False";
    if (v.isInt()) return int_text(v.toInt(), element->kind());
    if (v.isDouble()) return float_text(v.toDouble());
    if (v.isComplexDouble()) {
      const auto z = v.toComplexDouble();
      return "complex(" + float_text(z.real()) + ", " + float_text(z.imag()) + ")";
    }
    if (v.isString()) return quoted(v.toStringRef());
    if (v.isDevice()) return "torch.device(" + quoted(v.toDevice().str()) + ")";
    if (v.isList()) {
      c10::TypePtr item = element->kind() == c10::TypeKind::ListType ? element->containedType(0) : element;
      std::string s = "[";
      size_t k = 0;
      for (const c10::IValue& e : v.toList()) {
        const bool tensor = e.isTensor() && e.toTensor().defined();
        s += (s.size() > 1 ? ", " : "") + write(e, item, label + "[" + std::to_string(k) + "]");
        k += tensor;
      }
      return s + "]";
    }
    if (v.isGenerator()) return "None";  // a random op's values are not compared: any generator
    throw std::invalid_argument("no Python for a value of type " + v.tagKind());
  }

 private:
  static std::string int_text(int64_t v, c10::TypeKind kind) {
    if (kind == c10::TypeKind::ScalarTypeType) return dtype_text(static_cast<at::ScalarType>(v));
    if (kind == c10::TypeKind::MemoryFormatType) {
      switch (static_cast<at::MemoryFormat>(v)) {
        case at::MemoryFormat::Contiguous: return "torch.contiguous_format";
        case at::MemoryFormat::Preserve: return "torch.preserve_format";
        case at::MemoryFormat::ChannelsLast: return "torch.channels_last";
        case at::MemoryFormat::ChannelsLast3d: return "torch.channels_last_3d";
        default: break;
      }
    }
    if (kind == c10::TypeKind::LayoutType && static_cast<at::Layout>(v) == at::kStrided) return "torch.strided";
    return std::to_string(v);
  }

  Wrap wrap_;
};

// The call's bound stack as a Python list, every schema argument in order.
std::string stack_text(const runner::Call& call, ValueWriter& writer) {
  const auto& params = call.op->schema().arguments();
  std::string s = "[";
  for (size_t i = 0; i < call.args.size(); ++i)
    s += (i ? ", " : "") + writer.write(call.args[i], params.at(i).real_type(), params.at(i).name());
  return s + "]";
}

// "torch.ops.aten.add.Tensor" ("default" for the unnamed overload).
std::string op_path(const c10::FunctionSchema& schema) {
  std::string name = schema.name();
  name = name.substr(name.find("::") + 2);
  return "torch.ops.aten." + name + "." + (schema.overload_name().empty() ? "default" : schema.overload_name());
}

// The oracle's tolerance as the finding's message states it: "(atol 1e-05, rtol 1.3e-06)".
std::pair<std::string, std::string> tolerance_of(const std::string& message) {
  static const std::regex stated(R"(\(atol ([^,]+), rtol ([^)]+)\))");
  std::smatch m;
  if (std::regex_search(message, m, stated)) return {m[1], m[2]};
  return {"0.0", "0.0"};
}

// The TorchScript backends: the call as a scripted function of its tensor arguments (the C++
// graph's inputs; the other arguments are constants), run until the profiling executor has
// optimized it, with the fuser settings of runner/backends_jit.cpp.
std::string torchscript_backend(const runner::Call& call, const std::string& backend) {
  const auto& params = call.op->schema().arguments();
  std::string signature, arguments, graph_inputs;
  ValueWriter constants;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const c10::Argument& p = params[i];
    const c10::IValue& v = call.args[i];
    const bool input = (v.isTensor() && v.toTensor().defined()) ||
                       (v.isList() && v.toList().elementType()->isSubtypeOf(*c10::OptionalType::ofTensor()));
    std::string text = constants.write(v, p.real_type(), p.name());
    if (input) {
      text = "a" + std::to_string(i);
      signature += (signature.empty() ? "" : ", ") + text + ": " + p.real_type()->annotation_str();
      graph_inputs += "stack[" + std::to_string(i) + "], ";
    }
    arguments += (i ? ", " : "") + (p.kwarg_only() ? p.name() + "=" : std::string()) + text;
  }
  std::string name = call.op->schema().name();
  std::ostringstream s;
  if (backend != "torchscript_cpu")
    s << "torch._C._jit_override_can_fuse_on_cpu(True)\n"
      << "torch._C._jit_set_texpr_fuser_enabled(True)\n"
      << "torch._C._jit_set_te_must_use_llvm_cpu(False)\n"
      << "torch._C._debug_set_fusion_group_inlining(False)\n"
      << "torch._C._jit_set_texpr_reductions_enabled(True)\n"
      << "torch._C._jit_set_fusion_strategy([(\""
      << (backend == "torchscript_cpu_fused_dynamic" ? "DYNAMIC\", 10" : "STATIC\", 2") << ")])\n";
  s << "SOURCE = \"\"\"\ndef f(" << signature << "):\n    return torch.ops.aten." << name.substr(name.find("::") + 2)
    << "(" << arguments << ")\n\"\"\"\n\n\n"
    << "def backend():\n"
    << "    scripted = torch.jit.CompilationUnit(SOURCE).f  # TorchScript may refuse the call here\n"
    << "    for _ in range(4):  # profiling runs first, then the optimized plan\n"
    << "        stack = inputs()\n"
    << "        out = scripted(" << graph_inputs << ")\n"
    << "    return out\n";
  return s.str();
}

// How the backend runs the call, as a function `backend()`.
std::string backend_function(const runner::Call& call, const PythonFinding& f) {
  if (f.backend.starts_with("torchscript_cpu")) return torchscript_backend(call, f.backend);
  if (f.backend == "eager_cpu_fp64")
    return "def backend():\n"
           "    \"\"\"Floating inputs in float64 (complex in complex128), results cast back.\"\"\"\n"
           "    wide = lambda t: t.to(torch.complex128 if t.is_complex() else torch.float64) "
           "if t.is_floating_point() or t.is_complex() else t\n"
           "    out = call([tree_map(wide, v) for v in inputs()])\n"
           "    like, refused = outcome(lambda: call(inputs()))  # the dtypes of the call as given\n"
           "    return out if refused else cast_like(out, like)\n";
  if (f.backend == "eager_cpu_noncontig") {
    const auto layouts = runner::noncontig_layouts(call);
    ValueWriter laid_out([&](const std::string& label, std::string t) {
      auto it = layouts.find(label);
      return it == layouts.end() || it->second == "unchanged" ? t : it->second + "(" + t + ")";
    });
    return "def backend():\n    \"\"\"The same values in non-contiguous layouts.\"\"\"\n    return call(" +
           stack_text(call, laid_out) + ")\n";
  }
  return "def backend():\n    return call(inputs())\n";
}

// Backends a Python reproducer can stand for.
bool has_python_counterpart(const std::string& backend) {
  return backend == "eager_cpu" || backend == "eager_cpu_noncontig" || backend == "eager_cpu_fp64" ||
         backend.starts_with("torchscript_cpu");
}

}  // namespace

std::optional<std::string> python_reproducer(const runner::Call& call, const PythonFinding& f, std::string& why) {
  if (!call.op) return why = "a module's call has no Python reproducer: the YAML one runs it", std::nullopt;
  if (!has_python_counterpart(f.backend) || f.baseline != "eager_cpu")
    return why = f.backend + " against " + f.baseline + " has no Python counterpart: the YAML reproducer runs it",
           std::nullopt;
  ValueWriter plain;
  const auto [atol, rtol] = tolerance_of(f.message);
  const auto& params = call.op->schema().arguments();
  std::string names;
  size_t kwarg_only = 0;
  for (const c10::Argument& p : params)
    names += (names.empty() ? "" : ", ") + quoted(p.name()), kwarg_only += p.kwarg_only();

  std::ostringstream s;
  s << "#!/usr/bin/env python3\n"
    << "# Reproduces finding " << f.id << " of `ops-fuzz hunt`: " << f.backend << " departs from " << f.baseline
    << " on " << op_path(call.op->schema()) << " (" << f.kind << ").\n";
  for (const std::string& line : split(f.message, '\n')) s << "#   " << line << "\n";
  s << "# Prints both results and exits 1 while the discrepancy holds, 0 once it is gone.\n"
    << kPrelude << (f.backend == "eager_cpu_noncontig" ? kLayouts : "") << "\n"
    << "OP = " << op_path(call.op->schema()) << "\n"
    << "NAMES = [" << names << "]\n"
    << "KWARG_ONLY = " << kwarg_only << "  # the last arguments are keyword-only\n"
    << "ATOL, RTOL = " << atol << ", " << rtol << "  # the oracle's tolerance for this comparison\n\n\n"
    << "def inputs():\n    \"\"\"Every schema argument; fresh tensors for every call (an in-place op changes its own).\"\"\"\n"
    << "    return " << stack_text(call, plain) << "\n\n\n"
    << "def call(stack):\n    n = len(stack) - KWARG_ONLY\n"
    << "    return OP(*stack[:n], **dict(zip(NAMES[n:], stack[n:])))\n\n\n"
    << backend_function(call, f) << "\n\n"
    << kMain;
  return s.str();
}

}  // namespace opsfuzz
