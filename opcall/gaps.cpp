#include "opcall/gaps.h"

#include <ATen/ATen.h>

#include <limits>

namespace opsfuzz::opcall {

at::Tensor gap_filled(at::IntArrayRef sizes, const at::TensorOptions& options) {
  const at::ScalarType t = c10::typeMetaToScalarType(options.dtype());
  if (t == at::kBool) return at::full(sizes, true, options);
  if (at::isFloatingType(t) || at::isComplexType(t))
    return at::full(sizes, std::numeric_limits<double>::quiet_NaN(), options);
  return AT_DISPATCH_INTEGRAL_TYPES(t, "gap_filled", [&] {
    return at::full(sizes, static_cast<int64_t>(std::numeric_limits<scalar_t>::max()), options);
  });
}

}  // namespace opsfuzz::opcall
