// The op-family files of the SpecDB. Each spec is one function returning it; each family file
// lists its functions in one table, so adding a spec touches only its family file.
#pragma once

#include "specs/model/relations.h"

#include <span>

namespace opsfuzz::db {

using SpecFn = Spec (*)();

std::span<const SpecFn> binary_specs();
std::span<const SpecFn> unary_specs();
std::span<const SpecFn> reduction_specs();
std::span<const SpecFn> shape_specs();
std::span<const SpecFn> indexing_specs();
std::span<const SpecFn> convolution_specs();
std::span<const SpecFn> pooling_specs();
std::span<const SpecFn> norm_specs();
std::span<const SpecFn> creation_specs();
std::span<const SpecFn> view_specs();
std::span<const SpecFn> padding_specs();
std::span<const SpecFn> linalg_specs();
std::span<const SpecFn> einsum_specs();
std::span<const SpecFn> upsample_specs();

// The complex dtypes, for the rules of contracts that refuse them (ordering, rounding, functions
// of real numbers only): `self.dtype not in {complex64, complex128}`.
inline std::vector<c10::ScalarType> complex_list() { return dsl::listed(complex_dtypes()); }
inline Cond not_complex() { return dsl::NotIn(complex_list()); }
// `dtypes` with the complex dtypes after them.
std::vector<c10::ScalarType> with_complex(std::vector<c10::ScalarType> dtypes);
// A 0-dim tensor `value` written into tensor `into` (fill.Tensor, masked_fill.Tensor) is not complex
// when `into` is of a real dtype but bool: it would lose its imaginary part ("value cannot be
// converted to type float without overflow"); bool takes any number (its truth). Complex values
// into such a tensor, in invalid samples only, keep their parts nonzero (a scope) so that they lose one.
ArgSpec& no_imaginary_part_lost(ArgSpec& value, const std::string& into);

// Family builders, for ops whose specs differ in a line.
// Whether an op's CPU kernel has a float16 path where its contract takes float16.
enum class CpuFloat16 { Present, Missing };
// op(Tensor self) -> Tensor, pointwise, for self of `dtypes` (every dtype when empty; every real
// one with Complex::Refused). A missing float16 kernel is a deviation: valid samples avoid float16
// self unless under the contract.
enum class Complex { Taken, Refused };
Spec unary_pointwise(std::string op, std::vector<c10::ScalarType> dtypes = {},
                     CpuFloat16 float16 = CpuFloat16::Present, Complex complex = Complex::Taken);

// The value of an op's `dtype` argument (ScalarType?; nullopt when None): factories
// (creation.cpp) and reductions (reduction.cpp) cast to it.
inline std::optional<c10::ScalarType> the_dtype(const Ctx& c) { return c.scalar_type("dtype"); }

// Window rules shared by convolution (convolution.cpp) and pooling (pooling.cpp).
// A per-spatial-dim parameter list: one value for all dims, or one per dim.
Cond param_length(std::string input);
// The spatial output size of a convolution or pooling window (ATen's pooling_output_shape).
Term window_count(Term in, Term kernel, Term stride, Term pad, Term dilation, Term ceil);
Term positive_entries(const char* list);      // every entry of the int list >= 1
Term non_negative_entries(const char* list);  // every entry of the int list >= 0

// Rules a kernel checks only where it has something to compute (shape.cpp).
// Kernels that return early when there is nothing to compute skip the checks that follow: a rule
// is a rule of the contract while `empty` is false, and an unchecked deviation while it holds.
// `has` and `is` end the two labels.
Term self_is_empty();
struct Emptiness {
  Term empty = self_is_empty();
  const char* has = "self has elements";
  const char* is = "self is empty";
};
Spec& checked_unless_empty(Spec& s, const DeviationRef& d, const std::string& label, Term rule, const Emptiness& e = {});
// The same for a rule of one argument's attribute: `rule` where `checked(c)` holds, an unchecked
// deviation `d` elsewhere; `has` and `is` end the two labels.
ArgSpec& checked_where(ArgSpec& a, Attribute attr, const Cond& rule, const std::function<bool(const Ctx&)>& checked,
                       const DeviationRef& d, const std::string& has, const std::string& is);

}  // namespace opsfuzz::db
