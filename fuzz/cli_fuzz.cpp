// cli_fuzz: bytes as an argument vector (arguments separated by NUL bytes), parsed as ops-fuzz
// parses its command line, without running the command. Property: no crash or sanitizer report;
// the parse gives 0 (parsed, or --help) or 2 (bad usage).
#include "fuzz/check.h"
#include "tools/cli.h"

#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace opsfuzz;
  std::vector<std::string> args;
  std::string_view text = fuzz::as_text(data, size);
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\0', start);
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::ostringstream out, err;
  const int code = parse_cli(args, out, err);
  fuzz::require(code == 0 || code == 2, "the parse ends in 0 or 2, not " + std::to_string(code) + ": " + err.str());
  return 0;
}
