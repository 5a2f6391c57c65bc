#include "src/core/sweep_record.h"

namespace pperf {

using nlohmann::json;

const SweepPoint* SweepRace::best_point() const {
  if (!best) return nullptr;
  for (const auto& p : points)
    if (p.configuration == *best) return &p;
  return nullptr;
}

json to_json(const SweepRecord& sweep) {
  json j = sweep.unknown_fields;
  write_fields(j, sweep, kSweepRecordFields);
  j["axes"] = json::array();
  for (const auto& a : sweep.axes) {
    json axis = json::object();
    write_fields(axis, a, kSweepAxisFields);
    j["axes"].push_back(std::move(axis));
  }
  j["races"] = json::array();
  for (const auto& race : sweep.races) {
    json r = race.unknown_fields;
    write_fields(r, race, kSweepRaceFields);
    r["points"] = json::array();
    for (const auto& p : race.points) {
      json row = p.unknown_fields;
      write_fields(row, p, kSweepPointFields);
      row["values"] = p.values;
      if (p.verdict == "failed" && !p.cost_ratio_bounds) row.erase("cost_ratio_bounds");
      r["points"].push_back(std::move(row));
    }
    j["races"].push_back(std::move(r));
  }
  return j;
}

SweepRecord read_sweep(const JsonView& v) {
  if (!v.raw().is_object()) v.fail("expected the sweep's object");
  SweepRecord sweep;
  read_fields(v, sweep, kSweepRecordFields);
  for (const auto& a : v.at("axes").items()) {
    if (!a.raw().is_object()) a.fail("expected an axis object");
    read_fields(a, sweep.axes.emplace_back(), kSweepAxisFields);
  }
  for (const auto& r : v.at("races").items()) {
    if (!r.raw().is_object()) r.fail("expected a race object");
    SweepRace& race = sweep.races.emplace_back();
    read_fields(r, race, kSweepRaceFields);
    for (const auto& p : r.at("points").items()) {
      if (!p.raw().is_object()) p.fail("expected a point object");
      SweepPoint& point = race.points.emplace_back();
      read_fields(p, point, kSweepPointFields);
      const JsonView values = p.at("values");
      if (!values.raw().is_object()) values.fail("expected an object of axis values");
      for (const auto& axis : values.keys()) point.values[axis] = values.at(axis).as_string();
      point.unknown_fields = p.unread_members();
    }
    race.unknown_fields = r.unread_members();
  }
  sweep.unknown_fields = v.unread_members();
  return sweep;
}

}  // namespace pperf
