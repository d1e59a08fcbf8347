// Words for values and close words: dtype, memory-format and layout names as Python writes them,
// and "did you mean" suggestions by edit distance. One table and one distance for the project.
#pragma once

#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opsfuzz {

// A dtype by name, with or without "torch.": the canonical names ("float32", "int64",
// "complex64", ...) and Python's aliases ("float", "double", "half", "long", "int", "short",
// "cfloat", "cdouble"). nullopt if unknown.
std::optional<c10::ScalarType> parse_dtype(std::string_view name);
// The canonical dtype names, for messages: float16, bfloat16, float32, float64, int8, int16,
// int32, int64, uint8, bool, complex64, complex128.
std::span<const std::string> dtype_names();

// Memory formats and layouts by their Python names, with or without "torch.":
// contiguous_format, preserve_format, channels_last, channels_last_3d; strided, sparse_coo.
std::optional<c10::MemoryFormat> parse_memory_format(std::string_view name);
std::optional<c10::Layout> parse_layout(std::string_view name);
std::string_view name(c10::MemoryFormat f);  // "channels_last"; "memory_format?" if unnamed
std::string_view name(c10::Layout l);        // "strided"; "layout?" if unnamed

// Edit distance where an insertion, a deletion, a substitution or a swap of two neighbouring
// characters (the commonest typo) counts one.
size_t edit_distance(std::string_view a, std::string_view b);
// The distance up to which a candidate is a likely typo of `word`: max(2, |word| / 3).
size_t typo_distance(std::string_view word);
// Up to n candidates within max_distance of `word`, closest first; ties keep candidate order.
std::vector<std::string> closest(std::string_view word, std::span<const std::string> candidates, size_t n,
                                 size_t max_distance);
// Same, within typo_distance(word).
std::vector<std::string> closest(std::string_view word, std::span<const std::string> candidates, size_t n = 1);
// " (did you mean 'x'?)", " (did you mean 'x' or 'y'?)", or "" when nothing is close.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates, size_t n = 1);
// The same words for suggestions found otherwise: " (did you mean 'x', 'y' or 'z'?)", or "".
std::string suggestion(std::span<const std::string> best);

}  // namespace opsfuzz
