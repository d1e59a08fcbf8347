// What shrinking made of a finding (tools/reproducers.h makes it): its reproducers' paths, whether
// the YAML one reproduces, the elements before and after; as the fields of its findings.jsonl line.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace opsfuzz {

struct Reproduction {
  std::string yaml, py;                             // paths relative to the hunt's folder; "" when not written
  std::string why_not;                              // why one of them is missing
  bool yaml_reproduces = false;                     // running the YAML test gave the finding's key again
  int64_t elements_before = 0, elements_after = 0;  // tensor input elements, first sample and reproducer
  double seconds = 0;                               // shrinking and checking
};

// {"reproducers": {"yaml", "py"}, "shrunk": {"elements_before", "elements_after"}, ...}: the fields
// a finding's line gets.
nlohmann::json to_json(const Reproduction& r);
Reproduction reproduction_from_json(const nlohmann::json& j);

}  // namespace opsfuzz
