#include "generators/generators.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "opcall/gaps.h"

namespace opsfuzz {

std::string sample_id(const Sample& s) {
  std::string op = s.op;
  std::replace(op.begin(), op.end(), '.', '_');
  std::string index = std::to_string(s.index);
  if (index.size() < 4) index.insert(0, 4 - index.size(), '0');
  return op + (s.valid ? "__valid__" : "__invalid__") + index;
}
namespace {

template <class T> void fill(T* data, int64_t n, VariableGenerator& gen, Rng& rng) {
  gen.fill(data, n, rng, [](double v) { return static_cast<T>(v); });
}

// Integers drawn as doubles may sit just outside the dtype's range after rounding: they take its
// nearest end. Clamped, as minsd/maxsd rather than branches (tables of boundaries hit the ends
// at random); int64's top, 2^63, is no int64, so the double below it stands in for it.
template <class T> void fill_int(T* data, int64_t n, VariableGenerator& gen, Rng& rng) {
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
  constexpr bool exact_top = sizeof(T) < sizeof(int64_t);
  constexpr double top = exact_top ? hi : 0x1.fffffffffffffp62;
  gen.fill(data, n, rng, [=](double v) {
    const T inside = static_cast<T>(std::min(std::max(v, lo), top));
    if constexpr (exact_top) return inside;
    else return v >= hi ? std::numeric_limits<T>::max() : inside;
  });
}

template <class C> void fill_complex(C* data, int64_t n, VariableGenerator& gen, Rng& rng) {
  using R = typename C::value_type;
  for (int64_t i = 0; i < n; ++i) data[i] = C(static_cast<R>(gen.next(rng)), static_cast<R>(gen.next(rng)));
}

// Whether a tensor argument (or an entry of a tensor list) was given a non-contiguous layout.
bool laid_out_non_contiguous(const c10::IValue& v) {
  if (v.isTensor()) return !v.toTensor().is_contiguous();
  if (v.isTensorList())
    for (const at::Tensor& t : v.toTensorList())
      if (!t.is_contiguous()) return true;
  return false;
}

// The value of float format T nearest v on the side `up` (v itself when T holds it).
template <class T> double held_in(double v, bool up) {
  const T t = static_cast<T>(v);
  if (up ? static_cast<double>(t) >= v : static_cast<double>(t) <= v) return static_cast<double>(t);
  if constexpr (std::is_same_v<T, float>) return std::nextafter(t, up ? INFINITY : -INFINITY);
  else {  // sign and magnitude: away from zero is one up in the bits
    const uint16_t x = t.x;
    const bool negative = x & 0x8000;
    const uint16_t next = (x & 0x7fff) == 0 ? (up ? 0x0001 : 0x8001) : negative != up ? x + 1 : x - 1;
    return static_cast<double>(T(next, T::from_bits()));
  }
}

// The part of a value space that elements of dtype t hold: a narrower float rounds a value near
// an end of the space to its nearest neighbour, which may lie outside (65504 is 65536 in bfloat16).
const VariableSpace& held_space(const VariableSpace& space, c10::ScalarType t, VariableSpace& buffer) {
  using S = c10::ScalarType;
  if (t != S::Half && t != S::BFloat16 && t != S::Float) return space;
  if (!space.is_interval() || std::none_of(space.intervals().begin(), space.intervals().end(), [](const Interval& i) {
        return std::isfinite(i.lo) || std::isfinite(i.hi);
      }))
    return space;
  buffer = space;
  return buffer.round_inward(t == S::Half       ? held_in<c10::Half>
                             : t == S::BFloat16 ? held_in<c10::BFloat16>
                                                : held_in<float>);
}

// The ids of the value deviations (contract configuration) that argument `v` falls into.
void note_value_deviations(const MetaArg& meta, const c10::IValue& v, std::vector<std::string>& hits) {
  for (size_t k = 0; k < meta.tensors.size(); ++k) {
    const TensorMeta& t = meta.tensors[k];
    if (t.value_deviations.empty() || t.none) continue;
    const at::Tensor tensor = v.isTensor()       ? v.toTensor()
                              : v.isTensorList() ? v.toTensorList().get(k)
                                                 : *v.toOptionalTensorList().get(k);
    const std::vector<double> elements = tensor_elements(tensor);
    for (const auto& d : t.value_deviations)
      if (std::find(hits.begin(), hits.end(), d.id) == hits.end() &&
          !std::all_of(elements.begin(), elements.end(), [&](double x) { return d.keeps.contains(x); }))
        hits.push_back(d.id);
  }
}

// Arranges a tensor's values in ascending order, from the lowest value of its space to the highest
// (ArgSpec::ascending_scope), keeping its layout.
void ascend(const c10::IValue& v, const TensorMeta& meta) {
  if (!v.isTensor() || v.toTensor().numel() == 0) return;
  at::Tensor t = v.toTensor();
  at::Tensor sorted = std::get<0>(t.flatten().sort());
  auto lo = meta.values.min(), hi = meta.values.max();
  if (hi && std::isfinite(*hi)) sorted[-1].fill_(*hi);
  if (lo && std::isfinite(*lo)) sorted[0].fill_(*lo);
  t.copy_(sorted.view(t.sizes()));
}

}  // namespace

std::vector<double> tensor_elements(const at::Tensor& t) {
  at::Tensor d = (t.is_complex() ? at::view_as_real(t.resolve_conj()) : t).to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

at::Tensor TensorGenerator::generate(const TensorMeta& meta, Rng& rng) const {
  // The CPU allocation itself: at::empty's dispatch cost 800 of its 2,700 instructions.
  at::Tensor t(at::detail::empty_cpu(meta.shape, meta.dtype));
  const auto favoured =
      meta.profile == ValueProfile::Uniform ? std::vector<double>() : favoured_values(meta.profile, meta.dtype);
  VariableSpace buffer;
  VariableGenerator gen(held_space(meta.values, meta.dtype, buffer), meta.profile, favoured);
  int64_t n = t.numel();
  using S = c10::ScalarType;
  switch (meta.dtype) {
    case S::Bool: gen.fill(t.data_ptr<bool>(), n, rng, [](double v) { return v != 0; }); break;
    case S::Byte: fill_int(t.data_ptr<uint8_t>(), n, gen, rng); break;
    case S::Char: fill_int(t.data_ptr<int8_t>(), n, gen, rng); break;
    case S::Short: fill_int(t.data_ptr<int16_t>(), n, gen, rng); break;
    case S::Int: fill_int(t.data_ptr<int32_t>(), n, gen, rng); break;
    case S::Long: fill_int(t.data_ptr<int64_t>(), n, gen, rng); break;
    case S::Half: fill(t.data_ptr<c10::Half>(), n, gen, rng); break;
    case S::BFloat16: fill(t.data_ptr<c10::BFloat16>(), n, gen, rng); break;
    case S::Float: fill(t.data_ptr<float>(), n, gen, rng); break;
    case S::Double: fill(t.data_ptr<double>(), n, gen, rng); break;
    case S::ComplexFloat: fill_complex(t.data_ptr<c10::complex<float>>(), n, gen, rng); break;
    case S::ComplexDouble: fill_complex(t.data_ptr<c10::complex<double>>(), n, gen, rng); break;
    default: throw std::invalid_argument("cannot generate tensors of dtype " + std::string(name(meta.dtype)));
  }
  return meta.contiguous ? t : relayout(t, rng);
}

at::Tensor TensorGenerator::relayout(const at::Tensor& t, Rng& rng) const {
  enum Layout { Transposed, Permuted, Strided, ChannelsLast };
  int64_t r = t.dim();
  Layout options[4];
  size_t n = 0;
  if (cfg_.transposed && r >= 2) options[n++] = Transposed;
  if (cfg_.permuted && r >= 2) options[n++] = Permuted;
  if (cfg_.strided && r >= 1) options[n++] = Strided;
  if (cfg_.channels_last && (r == 4 || r == 5)) options[n++] = ChannelsLast;
  if (n == 0) return t;
  switch (options[rng.index(n)]) {
    case Transposed: return t.transpose(-1, -2).contiguous().transpose(-1, -2);
    case Permuted: {
      std::vector<int64_t> perm(static_cast<size_t>(r)), inverse(static_cast<size_t>(r));
      std::iota(perm.begin(), perm.end(), 0);
      for (size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng.index(i + 1)]);
      if (std::is_sorted(perm.begin(), perm.end())) std::rotate(perm.begin(), perm.begin() + 1, perm.end());
      for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
      return t.permute(perm).contiguous().permute(inverse);
    }
    case Strided: {
      auto sizes = t.sizes().vec();
      sizes.back() *= 2;
      at::Tensor wide = opcall::gap_filled(sizes, t.options());  // not uninitialized: the same every run
      at::Tensor view = wide.slice(-1, 0, sizes.back(), 2);
      view.copy_(t);
      return view;
    }
    case ChannelsLast: return t.contiguous(r == 4 ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::ChannelsLast3d);
  }
  return t;
}

c10::IValue ArgumentGenerator::generate(const MetaArg& meta, Rng& rng) const {
  if (meta.none) return {};
  const ArgType type = meta.argtype;
  if (is_tensor(type)) return tensors_.generate(meta.tensor(), rng);
  if (type == ArgType::TensorList) {
    c10::List<at::Tensor> list;
    for (const auto& t : meta.tensors) list.push_back(tensors_.generate(t, rng));
    return list;
  }
  if (type == ArgType::TensorOptList) {
    c10::List<c10::optional<at::Tensor>> list;
    for (const auto& t : meta.tensors)
      list.push_back(t.none ? c10::optional<at::Tensor>() : c10::optional<at::Tensor>(tensors_.generate(t, rng)));
    return list;
  }
  if (is_scalar(type)) {
    switch (meta.scalar_dtype) {
      case ScalarDtype::Bool: return c10::Scalar(as_double(meta.value) != 0);
      case ScalarDtype::Int: return c10::Scalar(as_int(meta.value));
      case ScalarDtype::Float: return c10::Scalar(as_double(meta.value));
    }
  }
  if (is_int_list(type)) return c10::IValue(std::get<IntList>(meta.value));
  if (is_float_list(type)) return c10::IValue(std::get<Floats>(meta.value));
  if (is_bool_list(type)) {
    c10::List<bool> list;
    for (bool b : std::get<Bools>(meta.value)) list.push_back(b);
    return list;
  }
  if (is_scalar_type(type)) return std::get<c10::ScalarType>(meta.value);
  if (is_memory_format(type)) return std::get<c10::MemoryFormat>(meta.value);
  if (is_layout(type)) return std::get<c10::Layout>(meta.value);
  if (is_device(type)) return c10::Device(std::get<c10::DeviceType>(meta.value));
  if (is_bool(type)) return as_double(meta.value) != 0;
  if (is_float(type)) return as_double(meta.value);
  if (is_string(type)) return std::get<std::string>(meta.value);
  return as_int(meta.value);
}

ArgumentTupleGenerator::ArgumentTupleGenerator(const Spec& spec, Config cfg, uint64_t seed, Validity validity,
                                               bool with_out)
    : spec_(spec),
      cfg_(std::move(cfg)),
      seed_(seed),
      validity_(validity),
      with_out_(with_out),
      engine_(spec_, cfg_),
      args_(cfg_.tensor),
      tasks_(validity == Validity::Valid ? engine_.valid_tasks() : engine_.invalid_tasks()) {}

uint64_t ArgumentTupleGenerator::tuples_per_round() const { return first_round_; }

// An invalid tuple on inputs where the kernel does not check the rule it breaks: a dead end, or
// under the contract configuration a sample in that deviation.
bool ArgumentTupleGenerator::keeps_to_checked_inputs(DeadEnd& cause) {
  const UncheckedInputs* unchecked = spec_.unchecked_inputs_for(tuple_.violated, values_);
  if (!unchecked) return true;
  if (cfg_.contract) {
    tuple_.deviations.push_back(unchecked->deviation.get());
    return true;
  }
  cause = DeadEnd{};
  cause.unchecked = true;
  cause.constraints = {unchecked->inputs};
  return false;
}

bool ArgumentTupleGenerator::attempt(const Task& task, Sample& out) {
  // Skipped tasks and redrawn candidates do not consume an index; the misses before this sample
  // vary its seed.
  Rng rng(derive_seed(derive_seed(seed_, index_), misses_));
  // Sampling joint constraints without look-ahead needs more attempts, and may still fail.
  const bool sampling = engine_.joint().active() && !engine_.joint().exact();
  const int retries = cfg_.limits.retries * (task.valid() ? 2 : 1) * (sampling ? 8 : 1);
  // Tensors are made as their arguments are solved, so that the draws of a seed stay in order.
  auto materialize = [&](int arg, const MetaArg& meta) {
    values_[static_cast<size_t>(arg)] = args_.generate(meta, rng);
    if (!spec_.args()[static_cast<size_t>(arg)].order_scope.empty() && !meta.none)
      ascend(values_[static_cast<size_t>(arg)], meta.tensor());
  };
  for (int i = 0; i < retries; ++i) {
    ++stats_.attempts;
    values_.resize(spec_.args().size());  // a solve that succeeds materializes every argument
    bool solved =
        engine_.solve(task, variant_, rng, materialize, tuple_) && (!with_out_ || engine_.solve_outs(rng, tuple_));
    stats_.solver_calls = engine_.joint().oracle_calls();
    DeadEnd cause = engine_.dead_end();
    if (solved && !task.valid()) solved = keeps_to_checked_inputs(cause);
    if (solved) break;
    ++stats_.dead_ends;
    ++stats_.dead_end_causes[cause];
    if (i + 1 < retries) continue;
    if (task.valid() && !sampling) throw UnsatisfiableSpec(cause.describe(spec_));
    return false;
  }
  out.op = spec_.op();
  out.args.clear(), out.outs.clear(), out.deviations.clear();
  size_t keywords = 0;  // out.kwargs keeps the names of the last sample, most often this op's
  for (const Deviation* d : tuple_.deviations) out.deviations.push_back(d->id);
  for (size_t i = 0; i < spec_.args().size(); ++i) {
    const auto& a = spec_.args()[i];
    if (a.layout_deviation && cfg_.contract && laid_out_non_contiguous(values_[i]))
      out.deviations.push_back(a.layout_deviation->id);
    if (cfg_.contract && !tuple_.metas[i].none) note_value_deviations(tuple_.metas[i], values_[i], out.deviations);
    if (!a.keyword) {
      out.args.push_back(std::move(values_[i]));
      continue;
    }
    if (keywords == out.kwargs.size()) out.kwargs.emplace_back(a.name, c10::IValue());
    else if (out.kwargs[keywords].first != a.name) out.kwargs[keywords].first = a.name;
    out.kwargs[keywords++].second = std::move(values_[i]);
  }
  out.kwargs.resize(keywords);
  if (with_out_)
    for (size_t k = 0; k < tuple_.outs.size(); ++k) {
      tuple_.outs[k].tensors.at(0).shape = {0};  // out= tensors start empty; the kernel resizes them
      out.outs.emplace_back(spec_.outs()[k].name, args_.generate(tuple_.outs[k], rng));
    }
  std::swap(out.metas, tuple_.metas);  // the next solve overwrites every entry
  out.valid = task.valid();
  out.violated = tuple_.violated;
  out.seed = seed_;
  out.index = index_;
  return true;
}

// Invalid samples are not redrawn: what their stream covers is the rule each one breaks. Once
// the budget is spent the classes are not even looked at, so a long stream runs at full speed.
bool ArgumentTupleGenerator::redraw(const Sample& candidate) {
  if (validity_ != Validity::Valid || stats_.redrawn == kRedrawBudget) return false;
  if (covered_.observe(candidate) > 0 || redraws_ == kRedraws) return false;
  ++redraws_, ++misses_, ++stats_.redrawn;
  return true;
}

bool ArgumentTupleGenerator::out_of_patience() const {
  if (empty_rounds_ < 3) return false;
  if (stats_.samples == 0) return stats_.attempts >= kFirstPatience;
  return stats_.attempts - attempts_at_last_sample_ > kPatience * attempts_at_last_sample_ / stats_.samples;
}

std::string ArgumentTupleGenerator::why_ended() const {
  if (!ended_) return "";
  std::string s = spec_.op() + ": the " + (validity_ == Validity::Valid ? "valid" : "invalid") +
                  " sample stream ended after " + std::to_string(stats_.samples) + " samples";
  if (tasks_.empty()) return s + ": the spec has no rule to break";
  s +=
      ", " + std::to_string(stats_.attempts - attempts_at_last_sample_) + " attempts in a row finding none; dead ends:";
  for (const auto& [cause, count] : stats_.dead_end_causes)
    s += "\n  " + std::to_string(count) + "  " + cause.cause(spec_);
  return s;
}

bool ArgumentTupleGenerator::next(Sample& out) {
  if (tasks_.empty()) ended_ = true;
  if (ended_) return false;
  for (;;) {
    if (task_ == tasks_.size()) {
      empty_rounds_ = produced_this_round_ ? 0 : empty_rounds_ + 1;
      if (out_of_patience()) {
        ended_ = true;  // and stays so
        return false;
      }
      if (stats_.rounds++ == 0) first_round_ = produced_this_round_;
      task_ = 0, produced_this_round_ = 0;
    }
    const Task& task = tasks_[task_];
    bool ok = attempt(task, out);
    if (ok && redraw(out)) continue;  // the same task and variant, from the next seed
    if (ok && variant_ == 0) variants_ = tuple_.variants;
    if (!ok) {
      ++stats_.skipped_tasks, ++misses_;
      variants_ = 1;
    }
    if (++variant_ >= variants_) ++task_, variant_ = 0;
    if (!ok) continue;
    ++index_, ++produced_this_round_, ++stats_.samples;
    attempts_at_last_sample_ = stats_.attempts;
    misses_ = 0, redraws_ = 0;
    return true;
  }
}

std::vector<Sample> generate_samples(const Spec& spec, const Config& cfg, uint64_t seed, Validity validity,
                                     size_t count) {
  ArgumentTupleGenerator gen(spec, cfg, seed, validity);
  std::vector<Sample> samples;
  Sample s;
  while (samples.size() < count && gen.next(s)) samples.push_back(s);
  return samples;
}

}  // namespace opsfuzz
