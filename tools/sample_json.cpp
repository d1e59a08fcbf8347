#include "tools/sample_json.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <boost/uuid/detail/sha1.hpp>
#include <cmath>
#include <cstdio>

#include "runner/results.h"

namespace opsfuzz {
namespace {

using Json = nlohmann::ordered_json;

Json number(double d) { return runner::json_number(d); }  // "nan", "inf", "-inf" as strings

// The SHA-1 of a tensor's values in row-major order, as their bytes in memory: what tells two
// samples' tensors apart bit for bit (Python: hashlib.sha1 of the contiguous tensor's bytes).
std::string values_sha1(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  boost::uuids::detail::sha1 hash;
  hash.process_bytes(c.data_ptr(), c.numel() * c.element_size());
  boost::uuids::detail::sha1::digest_type digest;
  hash.get_digest(digest);
  char hex[41];
  for (int i = 0; i < 5; ++i) std::snprintf(hex + 8 * i, 9, "%08x", digest[i]);
  return hex;
}

// dtype, shape, strides, the values' digest and a few statistics of them (computed in double).
Json tensor_json(const at::Tensor& t) {
  Json j = {{"dtype", name(t.scalar_type())},
            {"shape", t.sizes().vec()},
            {"strides", t.strides().vec()},
            {"sha1", values_sha1(t)}};
  if (t.numel() > 0 && !t.is_complex()) {
    at::Tensor d = t.to(at::kDouble).flatten();
    const double* p = d.data_ptr<double>();
    j["min"] = number(d.min().item<double>());
    j["max"] = number(d.max().item<double>());
    Json head = Json::array();
    for (int64_t i = 0; i < std::min<int64_t>(4, d.numel()); ++i) head.push_back(number(p[i]));
    j["head"] = head;
  }
  return j;
}

Json value_json(const c10::IValue& v) {
  if (v.isNone()) return nullptr;
  if (v.isTensor()) return tensor_json(v.toTensor());
  if (v.isTensorList()) {
    Json l = Json::array();
    for (const at::Tensor& t : v.toTensorList().vec()) l.push_back(tensor_json(t));
    return l;
  }
  if (v.isList()) {  // optional tensors
    Json l = Json::array();
    for (const c10::IValue& e : v.toList().vec()) l.push_back(value_json(e));
    return l;
  }
  if (v.isIntList()) return v.toIntVector();
  if (v.isBool()) return v.toBool();
  if (v.isInt()) return v.toInt();
  if (v.isDouble()) return number(v.toDouble());
  if (v.isString()) return v.toStringRef();
  if (v.isDevice()) return v.toDevice().str();
  return v.tagKind();
}

}  // namespace

std::string to_json(const Spec& spec, const Sample& s) {
  Json j = {{"op", s.op}, {"index", s.index}, {"seed", s.seed}, {"valid", s.valid}};
  if (!s.valid) j["violated"] = s.violated;
  if (!s.deviations.empty()) j["deviations"] = s.deviations;
  Json args = Json::array();
  size_t pos = 0, kw = 0;
  for (const auto& a : spec.args()) {
    const c10::IValue& v = a.keyword ? s.kwargs[kw++].second : s.args[pos++];
    Json value = value_json(v);
    if (is_scalar_type(a.type) && v.isInt()) value = name(static_cast<c10::ScalarType>(v.toInt()));
    if (is_memory_format(a.type) && v.isInt()) value = to_string(Value(static_cast<c10::MemoryFormat>(v.toInt())));
    if (is_layout(a.type) && v.isInt()) value = to_string(Value(static_cast<c10::Layout>(v.toInt())));
    Json arg = {{"name", a.name}, {"argtype", name(a.type)}};
    if (a.keyword) arg["keyword"] = true;
    arg["value"] = value;
    args.push_back(arg);
  }
  j["args"] = args;
  if (!s.outs.empty()) {
    Json out = Json::object();
    for (const auto& [name, v] : s.outs) out[name] = value_json(v);
    j["out"] = out;
  }
  return j.dump();
}

}  // namespace opsfuzz
