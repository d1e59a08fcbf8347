#include "hunt/reproduction.h"

#include <nlohmann/json.hpp>

namespace opsfuzz {

using nlohmann::json;

json to_json(const Reproduction& r) {
  json files = {{"yaml", r.yaml.empty() ? json() : json(r.yaml)}, {"py", r.py.empty() ? json() : json(r.py)}};
  json j = {{"reproducers", files},
            {"reproduces", r.yaml_reproduces},
            {"shrunk", {{"elements_before", r.elements_before}, {"elements_after", r.elements_after}}},
            {"shrink_seconds", r.seconds}};
  if (!r.why_not.empty()) j["reproducers_missing"] = r.why_not;
  return j;
}

Reproduction reproduction_from_json(const json& j) {
  Reproduction r;
  auto text = [](const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); };
  r.yaml = text(j.at("reproducers").at("yaml")), r.py = text(j.at("reproducers").at("py"));
  r.yaml_reproduces = j.at("reproduces").get<bool>();
  r.elements_before = j.at("shrunk").at("elements_before"), r.elements_after = j.at("shrunk").at("elements_after");
  r.seconds = j.value("shrink_seconds", 0.0);
  r.why_not = text(j.value("reproducers_missing", json()));
  return r;
}

}  // namespace opsfuzz
