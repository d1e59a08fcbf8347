#include "tools/sample_json.h"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdio>

namespace opsfuzz {
namespace {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

std::string number(double d) {
  if (std::isnan(d)) return "\"nan\"";
  if (std::isinf(d)) return d > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

std::string ints(c10::IntArrayRef l) {
  std::string s = "[";
  for (size_t i = 0; i < l.size(); ++i) s += (i ? "," : "") + std::to_string(l[i]);
  return s + "]";
}

// dtype, shape, strides and a few statistics of the values (computed in double).
std::string tensor_json(const at::Tensor& t) {
  std::string s = "{\"dtype\":" + quote(name(t.scalar_type())) + ",\"shape\":" + ints(t.sizes()) +
                  ",\"strides\":" + ints(t.strides());
  if (t.numel() > 0 && !t.is_complex()) {
    at::Tensor d = t.to(at::kDouble).flatten();
    const double* p = d.data_ptr<double>();
    s += ",\"min\":" + number(d.min().item<double>()) + ",\"max\":" + number(d.max().item<double>()) +
         ",\"head\":[";
    for (int64_t i = 0; i < std::min<int64_t>(4, d.numel()); ++i) s += (i ? "," : "") + number(p[i]);
    s += "]";
  }
  return s + "}";
}

std::string value_json(const c10::IValue& v) {
  if (v.isNone()) return "null";
  if (v.isTensor()) return tensor_json(v.toTensor());
  if (v.isTensorList()) {
    std::string s = "[";
    for (size_t i = 0; i < v.toTensorList().size(); ++i) s += (i ? "," : "") + tensor_json(v.toTensorList()[i]);
    return s + "]";
  }
  if (v.isList()) {  // optional tensors
    std::string s = "[";
    auto l = v.toList();
    for (size_t i = 0; i < l.size(); ++i) s += (i ? "," : "") + value_json(l.get(i));
    return s + "]";
  }
  if (v.isIntList()) return ints(v.toIntVector());
  if (v.isBool()) return v.toBool() ? "true" : "false";
  if (v.isInt()) return std::to_string(v.toInt());
  if (v.isDouble()) return number(v.toDouble());
  if (v.isString()) return quote(v.toStringRef());
  return quote(v.tagKind());
}

}  // namespace

std::string to_json(const Spec& spec, const Sample& s) {
  std::string out = "{\"op\":" + quote(s.op) + ",\"index\":" + std::to_string(s.index) +
                    ",\"seed\":" + std::to_string(s.seed) + ",\"valid\":" + (s.valid ? "true" : "false");
  if (!s.valid) out += ",\"violated\":" + quote(s.violated);
  if (!s.deviations.empty()) {
    out += ",\"deviations\":[";
    for (size_t i = 0; i < s.deviations.size(); ++i) out += (i ? "," : "") + quote(s.deviations[i]);
    out += "]";
  }
  out += ",\"args\":[";
  size_t pos = 0, kw = 0;
  for (size_t i = 0; i < spec.args().size(); ++i) {
    const auto& a = spec.args()[i];
    const c10::IValue& v = a.keyword ? s.kwargs[kw++].second : s.args[pos++];
    std::string value = value_json(v);
    if (is_scalar_type(a.type) && v.isInt()) value = quote(name(static_cast<c10::ScalarType>(v.toInt())));
    if (is_memory_format(a.type) && v.isInt()) value = quote(to_string(Value(static_cast<c10::MemoryFormat>(v.toInt()))));
    out += std::string(i ? "," : "") + "{\"name\":" + quote(a.name) + ",\"argtype\":" + quote(name(a.type)) +
           (a.keyword ? ",\"keyword\":true" : "") + ",\"value\":" + value + "}";
  }
  out += "]";
  for (size_t k = 0; k < s.outs.size(); ++k)
    out += std::string(k ? "," : ",\"out\":{") + quote(s.outs[k].first) + ":" + value_json(s.outs[k].second) +
           (k + 1 == s.outs.size() ? "}" : "");
  return out + "}";
}

}  // namespace opsfuzz
