// Crashes of the linked libtorch that the SpecDB reaches on purpose (invalid samples, or valid
// ones under --config contract): findings about the kernels, not failures of a sweep.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace opsfuzz {

struct KnownCrash {
  const char* op;       // "index_select.default" (a glob)
  const char* where;    // the violated constraint's label, or the deviation's id (a glob)
  const char* signal;   // as strsignal() names it: "Aborted", "Segmentation fault"
  const char* command;  // reproduces it
  const char* what;     // what goes wrong in the kernel
};

std::span<const KnownCrash> known_crashes();

// The known crash matching a sample of `op` that crashed with `message` ("killed by signal 6
// (Aborted)"), where `wheres` are its violated constraint and the deviations it hits.
const KnownCrash* find_known_crash(const std::string& op, const std::vector<std::string>& wheres,
                                   const std::string& message);

}  // namespace opsfuzz
