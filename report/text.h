// Text helpers of the report's pages.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "argtypes/text.h"  // join
#include "report/report.h"

namespace opsfuzz::report {

// `text` with &, <, >, " and ' as HTML entities.
std::string escape(const std::string& text);
std::string fixed(double v, int digits);
// 1234 as "1.2k", 0.25 as "0.25", 3 as "3": axis labels.
std::string short_number(double v);
// "range 12, rounding 3", or "nothing".
std::string set_aside_text(const std::map<std::string, uint64_t>& set_aside);
// A finding's ops: its op, and how many others it was seen on ("add.Scalar and 36 other ops").
std::string ops_text(const hunt::Finding& f);
// The curve's APFD line (hunt/apfd.h).
std::string apfd_text(const Curve& c);

}  // namespace opsfuzz::report
