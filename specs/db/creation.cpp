#include "specs/db/families.h"

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;
using M = c10::MemoryFormat;

const std::vector<S> kFloating = listed(floating_dtypes());

// The most elements a generated arange has; not a rule of the op.
constexpr double kMaxNumel = 4096;

// The keyword arguments of a factory: ScalarType? dtype=None (`dtype`), Layout? layout=None,
// Device? device=None, bool? pin_memory=None. Dense tensors on the CPU only: sparse layouts,
// other devices and pinned memory (which needs CUDA) are out of scope.
Spec factory(Spec s, ArgSpec dtype = ScalarTypeOpt("dtype")) {
  return s.kw(std::move(dtype))
      .kw(LayoutOpt("layout")
            .value(Scope(Named("layout is strided (dense tensors only)", Eq(c10::Layout::Strided)))))
      .kw(DeviceOpt("device")
            .value(Scope(Named("device is cpu (the reference runs on the CPU)", Eq(c10::DeviceType::CPU)))))
      .kw(BoolOpt("pin_memory")
            .value(Scope(Named("pin_memory is False (pinned memory needs CUDA)", Eq(false)))));
}

// SymInt[] size: no negative size.
ArgSpec sizes() {
  return Shape("size")
      .value(Ge(0));
}

// MemoryFormat? memory_format of a result shaped like `like` (its rank), or like size.
ArgSpec memory_format(bool preserve, std::string like, bool list) {
  std::string text = std::string(preserve ? "{contiguous, preserve}" : "contiguous") + ", channels_last when " +
                     (list ? "len(" + like + ")" : like + ".rank") + " == 4, channels_last_3d when 5";
  return MemoryFormatOpt("memory_format").deps(like)
      .value(In(text, [preserve, like, list](const Ctx& c) {
        std::vector<M> ok{M::Contiguous};
        if (preserve) ok.push_back(M::Preserve);
        int64_t r = list ? c.length(like) : c.rank(like);
        if (r == 4) ok.push_back(M::ChannelsLast);
        if (r == 5) ok.push_back(M::ChannelsLast3d);
        return ok;
      }));
}

// op(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
//    bool? pin_memory=None) -> Tensor, for dtypes `dtypes` (every dtype when empty).
Spec filled(std::string op, std::vector<S> dtypes = {}) {
  ArgSpec dtype = ScalarTypeOpt("dtype");
  if (!dtypes.empty()) dtype.value(In(std::move(dtypes)));
  return factory(Spec(std::move(op)).in(sizes()), std::move(dtype));
}

// zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
Spec zeros() { return filled("zeros.default"); }
// ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
Spec ones() { return filled("ones.default"); }
// rand(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
Spec rand() { return filled("rand.default", with_complex(kFloating)); }
// randn(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
Spec randn() { return filled("randn.default", with_complex(kFloating)); }

// full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None,
//      Device? device=None, bool? pin_memory=None) -> Tensor
Spec full() {
  return factory(Spec("full.default")
      .in(sizes())
      .in(Scalar("fill_value").deps("dtype")
            .value(fits_dtype("dtype", the_dtype))));
}

// full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None,
//           Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
Spec full_like() {
  return factory(Spec("full_like.default")
      .in(Tensor("self"))
      .in(Scalar("fill_value").deps("self", "dtype")
            .value(fits_dtype("dtype, else self.dtype", [](const Ctx& c) -> std::optional<c10::ScalarType> {
              if (c.is_none("dtype")) return c.dtype("self");
              return the_dtype(c);
            }))))
      .kw(memory_format(true, "self", false));
}

// empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
//                     bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
Spec empty() {
  return factory(Spec("empty.memory_format")
      .in(sizes()))
      .kw(memory_format(false, "size", true));
}

// empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None,
//               Device? device=None, bool? pin_memory=None) -> Tensor
Spec empty_strided() {
  auto negative = deviation("empty_strided.negative_stride_unchecked",
      "negative strides are accepted (as_strided refuses them) as long as the storage size they give "
      "stays positive",
      "ops-fuzz sweep empty_strided.default --invalid --config contract --seed 0 --max 300");
  return factory(Spec("empty_strided.default")
      .in(sizes())
      .in(Shape("stride").deps("size")
            .length(Eq("len(size)", [](const Ctx& c) { return c.length("size"); }))
            .value(Unchecked(negative, Ge(0)))));
}

// scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
//               bool? pin_memory=None) -> Tensor
Spec scalar_tensor() {
  return factory(Spec("scalar_tensor.default")
      .in(Scalar("s").deps("dtype")
            .value(fits_dtype("dtype", the_dtype))));
}

// The kernel fills no bool tensor, and counts in real numbers ("arange_cpu" not implemented for
// 'ComplexFloat').
ArgSpec arange_dtype() {
  return ScalarTypeOpt("dtype")
      .value(NotIn(with_complex({S::Bool})));
}

bool integral_dtype(const Ctx& c) {
  const auto t = the_dtype(c);
  return t && is_integral(*t, true);
}

// arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
//        bool? pin_memory=None) -> Tensor: [0, end) by 1.
Spec arange() {
  auto float_check = deviation("arange.half_end_checked_in_float",
      "with a float16 or bfloat16 dtype the kernel checks the sign of end - start in float: a negative end too small "
      "for a float (-5e-324) rounds to -0 and passes, giving an empty tensor",
      "ops-fuzz sweep arange.default --invalid --config contract,half --seed 0 --max 1000");
  auto rounds_to_zero_in_float = [](const Inputs& in) {
    const c10::IValue& dtype = in["dtype"];
    const bool half = !dtype.isNone() && (dtype.toScalarType() == S::Half || dtype.toScalarType() == S::BFloat16);
    return half && static_cast<float>(in["end"].toScalar().toDouble()) == 0.0f;
  };
  return factory(Spec("arange.default")
      .in(Scalar("end").deps("dtype")
            // With an integral dtype end is truncated first: (-1, 0) ends where 0 does.
            .value(Named("end >= 0 (the sign of the step, 1)", Ge("0 unless dtype is integral", [](const Ctx& c) -> std::optional<double> {
              if (integral_dtype(c)) return std::nullopt;
              return 0.0;
            })))
            .value(Named("end > -1 when dtype is integral (end is truncated)", Gt("-1 when dtype is integral", [](const Ctx& c) -> std::optional<double> {
              if (integral_dtype(c)) return -1.0;
              return std::nullopt;
            })))),
      arange_dtype())
      .unchecked_on(float_check, "dtype is float16 or bfloat16 and end rounds to 0 in float", rounds_to_zero_in_float,
                    {"end >= 0 (the sign of the step, 1)"});
}

// arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None,
//                   Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
Spec arange_step() {
  auto diff = [](const Ctx& c) { return c.as_double("end") - c.as_double("start"); };
  return factory(Spec("arange.start_step")
      .in(Scalar("start"))
      .in(Scalar("end").deps("start", "dtype")
            // With an integral dtype the step is truncated first: |step| < 1 fails even for an
            // empty range, which the rules of step below leave free.
            .value(Scope(Ne("start when dtype is integral", [](const Ctx& c) -> std::optional<double> {
              if (integral_dtype(c)) return c.as_double("start");
              return std::nullopt;
            }))))
      .in(Scalar("step").deps("start", "end", "dtype")
            // Solved before its value: a bool step would leave no value of the sign below.
            .dtype(Scope(Ne("bool when end < start (no bool is negative)", [diff](const Ctx& c) -> std::optional<ScalarDtype> {
              if (diff(c) < 0) return ScalarDtype::Bool;
              return std::nullopt;
            })))
            .value(Ne(0))
            .value(Named("step >= 1 when end > start and dtype is integral (step is truncated)",
                         Ge("1 when end > start and dtype is integral", [diff](const Ctx& c) -> std::optional<double> {
              if (diff(c) > 0 && integral_dtype(c)) return 1.0;
              return std::nullopt;
            })))
            .value(Named("step <= -1 when end < start and dtype is integral (step is truncated)",
                         Le("-1 when end < start and dtype is integral", [diff](const Ctx& c) -> std::optional<double> {
              if (diff(c) < 0 && integral_dtype(c)) return -1.0;
              return std::nullopt;
            })))
            .value(Named("step has the sign of end - start", Ge("0 when end > start", [diff](const Ctx& c) -> std::optional<double> {
              if (diff(c) > 0) return 0.0;
              return std::nullopt;
            })))
            .value(Named("step has the sign of end - start", Le("0 when end < start", [diff](const Ctx& c) -> std::optional<double> {
              if (diff(c) < 0) return 0.0;
              return std::nullopt;
            })))
            // At most kMaxNumel elements: |step| >= |end - start| / kMaxNumel.
            .value(Scope(Named("|step| >= |end - start| / 4096", Ge("|end - start| / 4096 when end > start", [diff](const Ctx& c) -> std::optional<double> {
              if (diff(c) > 0) return diff(c) / kMaxNumel;
              return std::nullopt;
            }))))
            .value(Scope(Named("|step| >= |end - start| / 4096", Le("-|end - start| / 4096 when end < start", [diff](const Ctx& c) -> std::optional<double> {
              if (diff(c) < 0) return diff(c) / kMaxNumel;
              return std::nullopt;
            }))))),
      arange_dtype());
}

// randperm(int n, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None,
//          bool? pin_memory=None) -> Tensor: n no larger than the dtype counts exactly.
Spec randperm() {
  return factory(Spec("randperm.default")
      .in(Length("n").deps("dtype")
            .value(Ge(0))
            .value(Le("the largest n that dtype holds", [](const Ctx& c) -> std::optional<int64_t> {
              switch (the_dtype(c).value_or(S::Long)) {
                case S::Byte: return 256;
                case S::Char: return 128;
                case S::Half: return 2049;
                case S::BFloat16: return 257;
                default: return std::nullopt;
              }
            }))),
      // A permutation of integers: no bool or complex one ("randperm" not implemented for 'ComplexFloat').
      ScalarTypeOpt("dtype")
          .value(NotIn(with_complex({S::Bool}))));
}

// _local_scalar_dense(Tensor self) -> Scalar
Spec local_scalar_dense() {
  auto unchecked = deviation("_local_scalar_dense.numel_unchecked",
      "the kernel never checks that self has one element: it returns the first element of a larger "
      "tensor and reads past the end of an empty one (the process may crash)",
      "ops-fuzz sweep _local_scalar_dense.default --invalid --config contract --seed 0 --max 300",
      {kSegfault});
  return Spec("_local_scalar_dense.default")
      .in(Tensor("self")
            .size(Unchecked(unchecked, Named("self has one element", Eq(1)))));
}

// fill.Scalar(Tensor self, Scalar value) -> Tensor
Spec fill_scalar() {
  return Spec("fill.Scalar")
      .in(Tensor("self"))
      .in(Scalar("value").deps("self")
            .value(fits_dtype("self.dtype", [](const Ctx& c) -> std::optional<c10::ScalarType> { return c.dtype("self"); })));
}

// fill.Tensor(Tensor self, Tensor value) -> Tensor: value is read as a Scalar.
Spec fill_tensor() {
  ArgSpec value = Tensor("value");
  no_imaginary_part_lost(value.deps("self"), "self");
  return Spec("fill.Tensor")
      .in(Tensor("self"))
      .in(std::move(value)
            .rank(Eq(0))
            // The kernel checks this (value.item() converts with an overflow check), but value's
            // own dtype rounds values past the range's ends back into it, so invalid samples could
            // not break it reliably: a generation scope.
            .value(Scope(fits_dtype("self.dtype", [](const Ctx& c) -> std::optional<c10::ScalarType> { return c.dtype("self"); }))));
}

// native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor); out= tensors out0, out1
Spec native_dropout() {
  auto eval_p = deviation("native_dropout.p_unchecked_without_training",
      "p outside [0, 1] is accepted when train is False or input is empty (only the training path's "
      "bernoulli_ checks it)",
      "ops-fuzz sweep native_dropout.default --invalid --config contract --seed 0 --max 300");
  auto training = [](const Ctx& c) {
    return c.numel("input") > 0 && (c.is_none("train") || c.as_int("train") != 0);
  };
  return Spec("native_dropout.default")
      // Training scales input by a float: integral and bool inputs cannot hold the result.
      .in(Tensor("input").deps("train")
            .dtype(In("the floating and complex dtypes unless train is False", [](const Ctx& c) -> std::optional<std::vector<S>> {
              if (!c.is_none("train") && c.as_int("train") == 0) return std::nullopt;
              return with_complex(kFloating);
            }))
            // An empty input returns before its dtype is checked.
            .size(Scope(Ge("1 when its dtype is neither floating nor complex", [](const Ctx& c) {
              return is_floating(c.own_dtype()) || c10::isComplexType(c.own_dtype()) ? 0 : 1;
            }))))
      .in(Float("p").deps("input", "train")
            .value(Named("p in [0, 1] when training on elements", Be("[0, 1]", [training](const Ctx& c) -> std::optional<std::vector<double>> {
              if (!training(c)) return std::nullopt;
              return std::vector<double>{0, 1};
            })))
            .value(Unchecked(eval_p, Named("p in [0, 1] when train is False or input is empty",
                                           Be("[0, 1]", [training](const Ctx& c) -> std::optional<std::vector<double>> {
              if (training(c)) return std::nullopt;
              return std::vector<double>{0, 1};
            })))))
      .in(BoolOpt("train"))
      .out(Tensor("out0").deps("input")
             .dtype(Eq("input.dtype", [](const Ctx& c) { return c.dtype("input"); })))
      .out(Tensor("out1")
             .dtype(Eq(S::Bool)));
}

// _to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
//          bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor
Spec to_copy() {
  return factory(Spec("_to_copy.default")
      .in(Tensor("self").deps("dtype")
            .value(Scope(casts_into("dtype", the_dtype)))))
      .kw(Bool("non_blocking"))
      .kw(memory_format(true, "self", false));
}

}  // namespace

std::span<const SpecFn> creation_specs() {
  static constexpr SpecFn table[] = {zeros, ones, rand, randn, full, full_like, empty, empty_strided, scalar_tensor,
                                     arange, arange_step, randperm, local_scalar_dense, fill_scalar, fill_tensor,
                                     native_dropout, to_copy};
  return table;
}

}  // namespace opsfuzz::db
