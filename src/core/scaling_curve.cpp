#include "src/core/scaling_curve.h"

namespace pperf {

using nlohmann::json;

json to_json(const ScalingRecord& s) {
  json j = {{"measured_as", s.measured_as}, {"curves", json::array()}};
  for (const auto& c : s.curves) {
    json curve = json::object();
    write_fields(curve, c, kScalingCurveFields);
    curve["points"] = json::array();
    for (const auto& p : c.points) {
      json point = json::object();
      write_fields(point, p, kScalingPointFields);
      curve["points"].push_back(std::move(point));
    }
    j["curves"].push_back(std::move(curve));
  }
  return j;
}

ScalingRecord read_scaling(const JsonView& v) {
  if (!v.raw().is_object()) v.fail("expected the scaling object");
  ScalingRecord s;
  s.measured_as = v.at("measured_as").as_string();
  for (const auto& c : v.at("curves").items()) {
    if (!c.raw().is_object()) c.fail("expected a curve object");
    ScalingCurve& curve = s.curves.emplace_back();
    read_fields(c, curve, kScalingCurveFields);
    for (const auto& p : c.at("points").items()) {
      if (!p.raw().is_object()) p.fail("expected a point object");
      read_fields(p, curve.points.emplace_back(), kScalingPointFields);
    }
  }
  return s;
}

}  // namespace pperf
