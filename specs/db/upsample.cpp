#include "specs/db/families.h"

#include <cmath>

namespace opsfuzz::db {
using namespace dsl;

namespace {
using S = c10::ScalarType;

// The smallest scale s for which the kernel's output size, (int64) (in * s) in doubles, is >= 1.
double smallest_scale(int64_t in) {
  double s = 1.0 / static_cast<double>(in);
  while (static_cast<double>(in) * s < 1) s = std::nextafter(s, INFINITY);
  return s;
}

// upsample_<mode><spatial>d.vec(Tensor input, SymInt[]? output_size, [bool align_corners,]
//                               float[]? scale_factors) -> Tensor
// The output size comes from exactly one of output_size and scale_factors (input.size(2 + i) *
// scale_factors[i], truncated); every spatial size, in and out, is >= 1, only the batch may be
// empty.
Spec upsample(std::string op, int64_t spatial, bool align_corners, std::vector<S> dtypes) {
  Spec spec(std::move(op));
  spec.in(Tensor("input")
              .dtype(In(std::move(dtypes)))
              .rank(Eq(spatial + 2))
              .size(Ge("1 except for the batch dim (0)", [](const Ctx& c) { return c.dim() == 0 ? 0 : 1; })))
      .in(LengthListOpt("output_size")
              .length(Eq(spatial))
              .value(Ge(1)));
  if (align_corners) spec.in(Bool("align_corners"));
  return spec.in(FloatListOpt("scale_factors").deps("input", "output_size")
                     .optional(Named("exactly one of output_size and scale_factors is given",
                                     Eq("output_size is not None", [](const Ctx& c) { return !c.is_none("output_size"); })))
                     .length(Eq(spatial))
                     .value(Named("input.size(2 + i) * scale_factors[i] >= 1",
                                  Ge("1 / input.size(2 + i)", [](const Ctx& c) -> std::optional<double> {
                                    int64_t in = c.size("input", 2 + c.position());
                                    if (in < 1) return std::nullopt;  // input breaks its own rule
                                    return smallest_scale(in);
                                  }))));
}

const std::vector<S> kNearestDtypes = {S::Byte, S::BFloat16, S::Float, S::Double};
const std::vector<S> kInterpolatingDtypes = {S::BFloat16, S::Float, S::Double};

Spec upsample_nearest1d() { return upsample("upsample_nearest1d.vec", 1, false, kNearestDtypes); }
Spec upsample_nearest2d() { return upsample("upsample_nearest2d.vec", 2, false, kNearestDtypes); }
Spec upsample_bilinear2d() { return upsample("upsample_bilinear2d.vec", 2, true, kInterpolatingDtypes); }
Spec upsample_bicubic2d() { return upsample("upsample_bicubic2d.vec", 2, true, kInterpolatingDtypes); }

}  // namespace

std::span<const SpecFn> upsample_specs() {
  static constexpr SpecFn table[] = {upsample_nearest1d, upsample_nearest2d, upsample_bilinear2d, upsample_bicubic2d};
  return table;
}

}  // namespace opsfuzz::db
