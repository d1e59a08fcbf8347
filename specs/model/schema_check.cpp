#include "specs/model/schema_check.h"

#include <ATen/core/function_schema.h>

#include <algorithm>

namespace opsfuzz {
namespace {

using K = c10::TypeKind;

bool is_int_kind(const c10::Type& t) { return t.kind() == K::IntType || t.kind() == K::SymIntType; }

bool list_of(const c10::Type& t, bool (*elem)(const c10::Type&)) {
  return t.kind() == K::ListType && elem(*t.expectRef<c10::ListType>().getElementType());
}

// Whether schema type `t` (optional already unwrapped) is what ArgType `a` generates.
bool matches(ArgType a, const c10::Type& t) {
  switch (base(a)) {
    case ArgType::Tensor: return t.kind() == K::TensorType;
    case ArgType::TensorList: return list_of(t, [](const c10::Type& e) { return e.kind() == K::TensorType; });
    case ArgType::TensorOptList:
      return list_of(t, [](const c10::Type& e) {
        return e.kind() == K::OptionalType &&
               e.expectRef<c10::OptionalType>().getElementType()->kind() == K::TensorType;
      });
    case ArgType::Scalar: return t.kind() == K::NumberType;
    case ArgType::ScalarType: return t.kind() == K::ScalarTypeType;
    case ArgType::Dim:
    case ArgType::Index:
    case ArgType::Length:
    case ArgType::Int: return is_int_kind(t);
    case ArgType::DimList:
    case ArgType::Shape:
    case ArgType::LengthList: return list_of(t, is_int_kind);
    case ArgType::Bool: return t.kind() == K::BoolType;
    case ArgType::BoolList: return list_of(t, [](const c10::Type& e) { return e.kind() == K::BoolType; });
    case ArgType::Float: return t.kind() == K::FloatType;
    case ArgType::FloatList: return list_of(t, [](const c10::Type& e) { return e.kind() == K::FloatType; });
    case ArgType::String: return t.kind() == K::StringType;
    case ArgType::MemoryFormat: return t.kind() == K::MemoryFormatType;
    case ArgType::Layout: return t.kind() == K::LayoutType;
    case ArgType::Device: return t.kind() == K::DeviceObjType;
    default: return false;
  }
}

std::string overload_name(const c10::FunctionSchema& s) {
  return s.name() + (s.overload_name().empty() ? "" : "." + s.overload_name());
}

void check_args(const std::vector<ArgSpec>& args, const std::vector<c10::Argument>& params, const std::string& where,
                std::vector<std::string>& out) {
  auto in_schema = [&](const std::string& n) {
    return std::any_of(params.begin(), params.end(), [&](const c10::Argument& p) { return p.name() == n; });
  };
  size_t next = 0;
  for (const auto& p : params) {
    for (; next < args.size() && !in_schema(args[next].name); ++next)
      out.push_back(where + ": the spec's argument '" + args[next].name + "' is not in the schema");
    const ArgSpec* a = next < args.size() && args[next].name == p.name() ? &args[next] : nullptr;
    if (!a) {
      bool later = false;
      for (size_t k = next; k < args.size(); ++k) later |= args[k].name == p.name();
      if (later) out.push_back(where + ": argument '" + p.name() + "' comes later in the spec than in the schema");
      else if (!p.default_value())
        out.push_back(where + ": argument '" + p.name() + "' (" + p.type()->str() + ") is missing from the spec");
      continue;
    }
    ++next;
    const c10::Type& type = *p.real_type();
    bool optional = type.kind() == K::OptionalType;
    const c10::Type& inner = optional ? *type.expectRef<c10::OptionalType>().getElementType() : type;
    if (!matches(a->type, inner))
      out.push_back(where + ": argument '" + p.name() + "' is " + std::string(name(a->type)) + " in the spec (" +
                    schema_kinds(a->type) + ") but " + p.type()->str() + " in the schema");
    else if (optional != is_optional(a->type))
      out.push_back(where + ": argument '" + p.name() + "' is " + (optional ? "" : "not ") +
                    "optional in the schema (" + p.type()->str() + ") but " + std::string(name(a->type)) +
                    " in the spec");
    if (p.kwarg_only() != a->keyword)
      out.push_back(where + ": argument '" + p.name() + "' is " + (p.kwarg_only() ? "keyword-only" : "positional") +
                    " in the schema but " + (a->keyword ? "keyword-only" : "positional") + " in the spec");
  }
  for (; next < args.size(); ++next)
    if (!in_schema(args[next].name))
      out.push_back(where + ": the spec's argument '" + args[next].name + "' is not in the schema");
}

}  // namespace

std::string schema_kinds(ArgType t) {
  static const char* const kinds[] = {"Tensor",
                                      "Tensor?",
                                      "Tensor[]",
                                      "Tensor?[]",
                                      "Scalar",
                                      "Scalar?",
                                      "ScalarType",
                                      "ScalarType?",
                                      "int",
                                      "int?",
                                      "int[]",
                                      "int[]?",
                                      "int[] or SymInt[]",
                                      "int or SymInt",
                                      "int? or SymInt?",
                                      "int or SymInt",
                                      "int? or SymInt?",
                                      "int[] or SymInt[]",
                                      "int[]? or SymInt[]?",
                                      "bool",
                                      "bool?",
                                      "bool[]",
                                      "int or SymInt",
                                      "int? or SymInt?",
                                      "float",
                                      "float?",
                                      "float[]",
                                      "float[]?",
                                      "str",
                                      "str?",
                                      "MemoryFormat",
                                      "MemoryFormat?",
                                      "Layout",
                                      "Layout?",
                                      "Device",
                                      "Device?"};
  static_assert(std::size(kinds) == static_cast<size_t>(ArgType::DeviceOpt) + 1);
  return kinds[static_cast<int>(t)];
}

std::vector<std::string> schema_mismatches(const Spec& spec, const c10::FunctionSchema& schema,
                                           const c10::FunctionSchema* out_schema) {
  std::vector<std::string> out;
  check_args(spec.args(), schema.arguments(), spec.op() + " against " + overload_name(schema), out);
  if (spec.outs().empty()) return out;
  std::string where = spec.op() + " against " + (out_schema ? overload_name(*out_schema) : "its out overload");
  if (!out_schema) {
    out.push_back(where + ": the spec has out= arguments but the op has no out overload");
    return out;
  }
  std::vector<ArgSpec> all = spec.args();
  all.insert(all.end(), spec.outs().begin(), spec.outs().end());
  check_args(all, out_schema->arguments(), where, out);
  for (const auto& o : spec.outs())
    for (const auto& p : out_schema->arguments())
      if (p.name() == o.name && !p.is_out()) out.push_back(where + ": '" + o.name + "' is not an out argument");
  return out;
}

}  // namespace opsfuzz
