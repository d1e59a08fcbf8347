// Small text helpers that many parts of the project need: one version of each.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opsfuzz {

// The non-empty parts of `text` between separators: split("a;;b", ';') is {"a", "b"}.
std::vector<std::string> split(std::string_view text, char sep);
// The parts with `sep` between them (a set's in its order).
std::string join(std::span<const std::string> parts, std::string_view sep = ", ");
std::string join(const std::set<std::string>& parts, std::string_view sep = ", ");
// A word for a POSIX shell: as it is when it holds nothing the shell reads, else in single
// quotes, each single quote inside written '\''.
std::string shell_quote(std::string_view word);
// A name GoogleTest and CTest read as one part: every character but ASCII letters, digits and
// '_' becomes '_' ("add.Tensor" -> "add_Tensor").
std::string identifier(std::string_view text);
// Sizes as Python prints a shape's list: "[2, 3]", "[]".
std::string sizes_text(std::span<const int64_t> sizes);

}  // namespace opsfuzz
