#include "runner/status.h"

#include <array>

namespace opsfuzz::runner {

namespace {
constexpr std::array<const char*, 7> kStatusNames = {"OK",          "SKIPPED",     "EXPORT_FAIL", "INFER_FAIL",
                                                     "TIMING_FAIL", "TIMED_ERROR", "ERROR"};
}

const char* name(Status status) { return kStatusNames.at(static_cast<size_t>(status)); }

std::optional<Status> parse_status(std::string_view text) {
  for (size_t i = 0; i < kStatusNames.size(); ++i)
    if (text == kStatusNames[i]) return static_cast<Status>(i);
  return std::nullopt;
}

}  // namespace opsfuzz::runner
