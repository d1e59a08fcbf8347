#include "report/text.h"

#include <cmath>
#include <cstdio>

#include "hunt/apfd.h"

namespace opsfuzz::report {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string short_number(double v) {
  const double a = std::fabs(v);
  if (a >= 1e6) return fixed(v / 1e6, a >= 1e7 ? 0 : 1) + "M";
  if (a >= 1e3) return fixed(v / 1e3, a >= 1e4 ? 0 : 1) + "k";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string set_aside_text(const std::map<std::string, uint64_t>& set_aside) {
  std::string out;
  for (const auto& [rule, n] : set_aside) out += (out.empty() ? "" : ", ") + rule + " " + std::to_string(n);
  return out.empty() ? "nothing" : out;
}

std::string ops_text(const hunt::Finding& f) {
  const size_t others = f.ops.size() - f.ops.count(f.op);
  if (others == 0) return f.op;
  return f.op + " and " + std::to_string(others) + (others == 1 ? " other op" : " other ops");
}

std::string apfd_text(const Curve& c) { return hunt::apfd_line(c.firsts, c.items); }

}  // namespace opsfuzz::report
