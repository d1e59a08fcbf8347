#include "suite/materialize.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>

#include "argtypes/argtypes.h"
#include "argtypes/rng.h"
#include "opcall/gaps.h"

namespace opsfuzz::suite {

namespace {

uint64_t fnv1a(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

at::TensorOptions doubles() { return at::TensorOptions().dtype(at::kDouble); }

// Values of one real part, drawn in float64 then cast, so every dtype follows the same rule.
at::Tensor sample_real(const Node& n, at::IntArrayRef shape, at::Generator& g) {
  bool is_bool = n.dtype == at::kBool;
  double low = n.has_range || !is_bool ? n.low : 0, high = n.has_range || !is_bool ? n.high : 1;
  switch (n.init) {
    case Init::Zeros: return at::zeros(shape, doubles());
    case Init::Ones: return at::ones(shape, doubles());
    case Init::Normal: {
      at::Tensor t = at::empty(shape, doubles()).normal_(n.mean, n.std, g);
      return n.has_range ? t.clamp_(n.low, n.high) : t;  // a range bounds normal samples
    }
    case Init::Uniform: return at::empty(shape, doubles()).uniform_(low, high, g);
    case Init::Randint: {
      auto from = static_cast<int64_t>(std::ceil(low));
      auto to = static_cast<int64_t>(std::floor(high)) + 1;  // inclusive high
      if (to <= from)
        throw std::invalid_argument("randint range [" + std::to_string(low) + ", " + std::to_string(high) +
                                    "] holds no integer");
      return at::empty(shape, doubles()).random_(from, to, g);
    }
    case Init::Bernoulli: return at::empty(shape, doubles()).bernoulli_(n.p, g);
  }
  return {};
}

at::Tensor sample_tensor(const Node& n, at::IntArrayRef shape, at::Generator& g) {
  at::Tensor t;
  if (c10::isComplexType(n.dtype)) {  // real and imaginary parts drawn independently
    at::Tensor re = sample_real(n, shape, g);
    at::Tensor im = sample_real(n, shape, g);
    t = at::complex(re, im);
  } else {
    t = sample_real(n, shape, g);
  }
  t = t.to(n.dtype);
  if (n.requires_grad && (c10::isFloatingType(n.dtype) || c10::isComplexType(n.dtype))) t.requires_grad_(true);
  return t;
}

double number_of(const YamlValue& v) { return v.is_bool() ? double(v.b) : v.number(); }

void flatten_ints(const YamlValue& v, std::vector<int64_t>& out) {
  if (v.is_list()) {
    for (const auto& item : v.items) flatten_ints(item, out);
  } else {
    out.push_back(v.is_bool() ? int64_t(v.b) : v.is_float() ? static_cast<int64_t>(v.f) : v.i);
  }
}

// One element's bits, as the unsigned integer of its width, in the machine's order.
template <class Unsigned> void store(char* element, uint64_t bits) {
  auto u = static_cast<Unsigned>(bits);
  std::memcpy(element, &u, sizeof u);
}

void store_bits(char* element, uint64_t bits, size_t bytes) {
  if (bytes == 2) return store<uint16_t>(element, bits);
  if (bytes == 4) return store<uint32_t>(element, bits);
  store<uint64_t>(element, bits);
}

// Floating elements, flat: numbers read as float64 and cast to the dtype one by one in C++ (round
// to nearest even; .nan the dtype's positive quiet NaN), not by ATen's copy kernel, whose
// vectorized casts may give a NaN other bits; elements written as bits stored as they are (the
// loader checked their width).
at::Tensor floating_elements(const YamlValue& value, at::ScalarType dtype) {
  std::vector<const YamlValue*> elements;
  leaves(value, elements);
  at::Tensor t = at::empty({static_cast<int64_t>(elements.size())}, at::TensorOptions().dtype(dtype));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "const_tensor", [&] {
    scalar_t* data = t.data_ptr<scalar_t>();
    for (size_t k = 0; k < elements.size(); ++k)
      if (auto bits = parse_bits(*elements[k]))
        store_bits(reinterpret_cast<char*>(data + k), bits->bits, sizeof(scalar_t));
      else data[k] = static_cast<scalar_t>(number_of(*elements[k]));
  });
  return t;
}

at::Tensor const_tensor(const Node& n) {
  std::vector<int64_t> pair_shape = n.shape;
  pair_shape.push_back(2);
  if (c10::isComplexType(n.dtype) && nests_as(n.value, pair_shape))  // [real, imaginary] pairs
    return at::view_as_complex(floating_elements(n.value, c10::toRealValueType(n.dtype)).reshape(pair_shape));
  if (c10::isIntegralType(n.dtype, true)) {  // exact for large integers
    std::vector<int64_t> flat;
    flatten_ints(n.value, flat);
    return at::tensor(flat, at::TensorOptions().dtype(at::kLong)).reshape(n.shape).to(n.dtype);
  }
  if (c10::isFloatingType(n.dtype)) return floating_elements(n.value, n.dtype).reshape(n.shape);
  return floating_elements(n.value, at::kDouble).reshape(n.shape).to(n.dtype);  // complex: real parts
}

// The node's values in the layout it gives (strides, offset), the gaps zero; as they are when it
// gives none.
at::Tensor laid_out(const Node& n, const at::Tensor& values) {
  if (n.strides.empty() && n.storage_offset == 0) return values;
  std::vector<int64_t> strides = n.strides.empty() ? values.strides().vec() : n.strides;
  const bool empty = std::find(n.shape.begin(), n.shape.end(), 0) != n.shape.end();
  int64_t extent = n.storage_offset + (empty ? 0 : 1);  // storage elements the view reaches
  for (size_t d = 0; d < strides.size() && !empty; ++d) extent += strides[d] * (n.shape[d] - 1);
  at::Tensor out = opcall::gap_filled({extent}, values.options()).as_strided(n.shape, strides, n.storage_offset);
  out.copy_(values.detach());
  return values.requires_grad() ? out.requires_grad_(true) : out;
}

c10::IValue scalar_value(const Node& n) {
  if (n.dtype == at::kBool) return n.value.is_bool() ? n.value.b : n.value.number() != 0;
  if (c10::isIntegralType(n.dtype, false))
    return n.value.is_int() ? n.value.i : static_cast<int64_t>(n.value.is_bool() ? n.value.b : n.value.f);
  if (auto bits = parse_bits(n.value)) return std::bit_cast<double>(bits->bits);
  return number_of(n.value);
}

c10::IValue sample_scalar(const Node& n, at::Generator& g) {
  if (n.has_value) return scalar_value(n);
  at::Tensor one = at::empty({}, doubles());
  if (n.dtype == at::kBool) return one.bernoulli_(n.p, g).item<double>() != 0;
  if (c10::isIntegralType(n.dtype, false)) {
    auto from = static_cast<int64_t>(std::ceil(n.low));
    auto to = static_cast<int64_t>(std::floor(n.high)) + 1;
    if (to <= from) throw std::invalid_argument("scalar range holds no integer");
    return static_cast<int64_t>(one.random_(from, to, g).item<double>());
  }
  return one.uniform_(n.low, n.high, g).item<double>();
}

// Builds a list IValue typed by its elements, as the schema types expect (int[], Tensor[], ...).
c10::IValue typed_list(const std::vector<c10::IValue>& items) {
  auto all = [&](auto pred) { return !items.empty() && std::all_of(items.begin(), items.end(), pred); };
  if (all([](const c10::IValue& v) { return v.isInt(); })) {
    c10::List<int64_t> l;
    for (const auto& v : items) l.push_back(v.toInt());
    return l;
  }
  if (all([](const c10::IValue& v) { return v.isDouble() || v.isInt(); })) {
    c10::List<double> l;
    for (const auto& v : items) l.push_back(v.isInt() ? double(v.toInt()) : v.toDouble());
    return l;
  }
  if (all([](const c10::IValue& v) { return v.isBool(); })) {
    c10::List<bool> l;
    for (const auto& v : items) l.push_back(v.toBool());
    return l;
  }
  if (all([](const c10::IValue& v) { return v.isTensor(); })) {
    c10::List<at::Tensor> l;
    for (const auto& v : items) l.push_back(v.toTensor());
    return l;
  }
  if (all([](const c10::IValue& v) { return v.isTensor() || v.isNone(); })) {
    c10::List<c10::optional<at::Tensor>> l;
    for (const auto& v : items) l.push_back(v.isNone() ? c10::nullopt : c10::optional<at::Tensor>(v.toTensor()));
    return l;
  }
  if (all([](const c10::IValue& v) { return v.isString(); })) {
    c10::List<std::string> l;
    for (const auto& v : items) l.push_back(v.toStringRef());
    return l;
  }
  c10::impl::GenericList l(c10::AnyType::get());
  for (const auto& v : items) l.push_back(v);
  return l;
}

c10::IValue materialize_with(const Node& n, at::Generator& g, const std::string& directory);

std::shared_ptr<Module> construct(const Node& n, at::Generator& g, const std::string& directory) {
  std::vector<c10::IValue> args;
  for (const auto& a : n.args) args.push_back(materialize_with(a, g, directory));
  Kwargs kwargs;
  for (const auto& [name, a] : n.kwargs) kwargs.emplace_back(name, materialize_with(a, g, directory));
  // Module constructors initialize weights from the global CPU generator: seed it from this
  // node's generator, under a lock, so construction is reproducible.
  uint64_t seed;
  {
    std::lock_guard generator_lock(g.mutex());
    seed = at::check_generator<at::CPUGeneratorImpl>(g)->random64();
  }
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  torch::manual_seed(seed);
  return make_module(n.path, args, kwargs, directory);
}

c10::IValue materialize_with(const Node& n, at::Generator& g, const std::string& directory) {
  if (!n.defect.empty()) throw std::invalid_argument(n.defect);
  switch (n.type) {
    case NodeType::Tensor: return sample_tensor(n, n.shape, g);
    case NodeType::ScalarTensor:
      if (n.has_value) return const_tensor(n);  // its shape is []
      return sample_tensor(n, {}, g);
    case NodeType::ConstTensor: return laid_out(n, n.has_value ? const_tensor(n) : sample_tensor(n, n.shape, g));
    case NodeType::Scalar: return sample_scalar(n, g);
    case NodeType::IntList: return c10::List<int64_t>(n.ints);
    case NodeType::List: {
      std::vector<c10::IValue> items;
      for (int64_t k = 0; k < n.len; ++k) items.push_back(materialize_with(n.elems[0], g, directory));
      if (items.empty() && (n.elems[0].type == NodeType::Tensor || n.elems[0].type == NodeType::ConstTensor))
        return c10::List<at::Tensor>();
      return typed_list(items);
    }
    case NodeType::Tuple: {
      std::vector<c10::IValue> items;
      for (const auto& e : n.elems) items.push_back(materialize_with(e, g, directory));
      return c10::ivalue::Tuple::create(std::move(items));
    }
    case NodeType::Optional: {
      bool none = n.p_none > 0 && at::empty({}, doubles()).bernoulli_(n.p_none, g).item<double>() != 0;
      return none ? c10::IValue() : materialize_with(n.elems[0], g, directory);
    }
    case NodeType::Const: return literal_ivalue(n.value);
    case NodeType::Module:
    case NodeType::Construct: return module_to_ivalue(construct(n, g, directory));
  }
  return {};
}

}  // namespace

uint64_t input_seed(uint64_t run_seed, std::string_view test_id, std::string_view path) {
  uint64_t h = fnv1a(0xcbf29ce484222325ULL, test_id);
  h = fnv1a(h, std::string_view("\0", 1));  // keeps ("ab", "c") apart from ("a", "bc")
  h = fnv1a(h, path);
  return mix64(run_seed ^ mix64(h));
}

c10::IValue literal_ivalue(const YamlValue& v) {
  switch (v.kind) {
    case YamlValue::Kind::Null: return {};
    case YamlValue::Kind::Bool: return v.b;
    case YamlValue::Kind::Int: return v.i;
    case YamlValue::Kind::Float: return v.f;
    case YamlValue::Kind::String: return v.s;
    case YamlValue::Kind::List: {
      std::vector<c10::IValue> items;
      for (const auto& item : v.items) items.push_back(literal_ivalue(item));
      return typed_list(items);
    }
    case YamlValue::Kind::Map: {
      c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
      for (const auto& [key, value] : v.entries) d.insert(python_str(key), literal_ivalue(value));
      return d;
    }
  }
  return {};
}

c10::IValue materialize(const Node& node, uint64_t seed, const std::string& directory) {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
  return materialize_with(node, g, directory);
}

at::Tensor complex_from_packed(const at::Tensor& packed) {
  if (packed.is_complex()) return packed;  // already complex: passed on
  if (packed.dim() == 0 || packed.size(-1) != 2 || !packed.is_floating_point())
    throw std::invalid_argument(
        "cast_input0_to_complex: input 0 must be a complex tensor or a real floating tensor of "
        "shape [..., 2], got " +
        std::string(opsfuzz::name(packed.scalar_type())) + " of shape " + c10::str(packed.sizes()));
  at::Tensor real = packed.scalar_type() == at::kDouble ? packed : packed.to(at::kFloat);
  return at::view_as_complex(real.contiguous());
}

// The two sides of a pair test get the same inputs (and weights): they are seeded by the pair.
static const std::string& seed_id(const Test& test) { return test.pair.empty() ? test.id : test.pair; }

Inputs materialize_inputs(const Test& test, uint64_t run_seed) {
  Inputs inputs;
  for (size_t k = 0; k < test.in.size(); ++k) {
    std::string path = "in[" + std::to_string(k) + "]";
    inputs.args.push_back(materialize(test.in[k], input_seed(run_seed, seed_id(test), path), test.directory));
  }
  for (const auto& [name, node] : test.kwargs)
    inputs.kwargs.emplace_back(
        name, materialize(node, input_seed(run_seed, seed_id(test), "kwargs." + name), test.directory));
  if (test.cast_input0_to_complex && !inputs.args.empty()) {
    if (!inputs.args[0].isTensor()) throw std::invalid_argument("cast_input0_to_complex: input 0 is not a tensor");
    inputs.args[0] = complex_from_packed(inputs.args[0].toTensor());
  }
  return inputs;
}

std::shared_ptr<Module> materialize_module(const Test& test, uint64_t run_seed) {
  if (!test.module) throw std::logic_error("test " + test.id + " has no module");
  uint64_t seed = input_seed(run_seed, seed_id(test), "op");
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
  return construct(*test.module, g, test.directory);
}

}  // namespace opsfuzz::suite
