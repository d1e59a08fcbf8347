// What the fuzz harnesses share: a property that does not hold stops the run with a message,
// which libFuzzer reports with the input as a crash (and writes the input to a file).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace opsfuzz::fuzz {

[[noreturn]] inline void violated(const std::string& property) {
  std::fprintf(stderr, "opsfuzz fuzz property violated: %s\n", property.c_str());
  std::abort();
}

inline void require(bool holds, const std::string& property) {
  if (!holds) violated(property);
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace opsfuzz::fuzz
