// Conditions on a sample's inputs, by argument name (Spec::unchecked_on).
#include "specs/model/dsl.h"

#include <ATen/core/ivalue.h>

namespace opsfuzz {

const c10::IValue& Inputs::operator[](std::string_view arg) const {
  int i = spec_.index_of(arg);
  if (i < 0)
    throw std::invalid_argument(spec_.op() + ": a condition on inputs reads '" + std::string(arg) +
                                "', not an argument");
  return values_.at(static_cast<size_t>(i));
}

namespace dsl {

bool is_empty(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().numel() == 0;
  if (v.isTensorList())
    for (const at::Tensor& t : v.toTensorVector())
      if (t.numel() == 0) return true;
  if (v.isList())  // Tensor?[]
    for (const c10::IValue& e : v.toListRef())
      if (e.isTensor() && e.toTensor().numel() == 0) return true;
  return false;
}

bool is_non_contiguous(const c10::IValue& v) { return v.isTensor() && !v.toTensor().is_contiguous(); }

}  // namespace dsl
}  // namespace opsfuzz
