// The statuses a run of a side on a backend ends in: opdiff's, spelt as opdiff writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace opsfuzz::runner {

// opdiff's statuses, ranked best to worst in this order (its report scripts rank them so).
enum class Status : uint8_t { Ok, Skipped, ExportFail, InferFail, TimingFail, TimedError, Error };
// "OK", "SKIPPED", "EXPORT_FAIL", "INFER_FAIL", "TIMING_FAIL", "TIMED_ERROR", "ERROR".
const char* name(Status status);
// The status `text` names exactly (as name() spells it), or nullopt.
std::optional<Status> parse_status(std::string_view text);

}  // namespace opsfuzz::runner
