#pragma once
// A sweep's race as the results file records it (docs/results.md "sweep"): typed, with its JSON
// keys listed once beside each record (json_fields.h). The session fills it after pricing
// (src/session/sweep_race.h); the writers in reports/ read its fields.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/json_fields.h"
#include "src/core/json_view.h"

namespace pperf {

/// One knob the sweep varies and its values as the point names spell them.
struct SweepAxis {
  std::string name;
  std::vector<std::string> values;
};
inline constexpr auto kSweepAxisFields =
    std::make_tuple(json_field("name", &SweepAxis::name), json_field("values", &SweepAxis::values));

/// One point of a race, as it ended.
struct SweepPoint {
  std::string configuration;
  std::map<std::string, std::string> values;  // axis -> the point's value
  int64_t rounds = 0;                          // rounds it took turns in
  double measured_s = 0;                       // its measured steps' seconds
  std::optional<double> usd_per_1m_samples;
  std::optional<std::array<double, 2>> usd_per_1m_samples_ci95;
  std::optional<int64_t> left_after_round;     // eliminated: the round it left
  /// Its cost per sample over the best's (over the point it was compared with when it left);
  /// written (null when unknown) for every point but a failed one.
  std::optional<std::array<double, 2>> cost_ratio_bounds;
  std::optional<std::string> compared_with;  // the best it was judged against (absent: it is the best, or failed)
  std::string verdict;                       // best | equivalent | undecided | eliminated | failed
  nlohmann::json unknown_fields = nlohmann::json::object();
};
inline constexpr auto kSweepPointFields = std::make_tuple(
    json_field("configuration", &SweepPoint::configuration), json_field("rounds", &SweepPoint::rounds),
    json_field("measured_s", &SweepPoint::measured_s), json_field("usd_per_1m_samples", &SweepPoint::usd_per_1m_samples),
    json_field("usd_per_1m_samples_ci95", &SweepPoint::usd_per_1m_samples_ci95),
    json_field("left_after_round", &SweepPoint::left_after_round),
    json_field("cost_ratio_bounds", &SweepPoint::cost_ratio_bounds),
    json_field_added("compared_with", &SweepPoint::compared_with), json_field("verdict", &SweepPoint::verdict));

/// One workload's race: how it was judged, how it ended, and its points cheapest first.
struct SweepRace {
  std::string workload;
  int64_t rounds = 0, round_steps = 0;
  double confidence = 0, comparison_confidence = 0, equivalence_pct = 0;
  std::string method;
  bool finished = false;
  std::string stop;                   // why it ended
  std::optional<std::string> best;    // none when no point was measured
  std::vector<std::string> equivalent;  // the points equivalent to the best
  double measured_s = 0, saved_s = 0, saved_fraction = 0;
  std::vector<SweepPoint> points;
  nlohmann::json unknown_fields = nlohmann::json::object();

  /// The best point's row, if any.
  const SweepPoint* best_point() const;
};
inline constexpr auto kSweepRaceFields = std::make_tuple(
    json_field("workload", &SweepRace::workload), json_field("rounds", &SweepRace::rounds),
    json_field("round_steps", &SweepRace::round_steps), json_field("confidence", &SweepRace::confidence),
    json_field("comparison_confidence", &SweepRace::comparison_confidence),
    json_field("equivalence_pct", &SweepRace::equivalence_pct), json_field("method", &SweepRace::method),
    json_field("finished", &SweepRace::finished), json_field("stop", &SweepRace::stop), json_field("best", &SweepRace::best),
    json_field("equivalent", &SweepRace::equivalent), json_field("measured_s", &SweepRace::measured_s),
    json_field("saved_s", &SweepRace::saved_s), json_field("saved_fraction", &SweepRace::saved_fraction));

/// The `sweep` object: the axes over the base configuration, and a race per workload.
struct SweepRecord {
  std::string base;
  bool grid = true;  // axes: every combination; false: listed points
  std::vector<SweepAxis> axes;
  std::vector<SweepRace> races;
  nlohmann::json unknown_fields = nlohmann::json::object();
};
inline constexpr auto kSweepRecordFields =
    std::make_tuple(json_field("base", &SweepRecord::base), json_field("grid", &SweepRecord::grid));

nlohmann::json to_json(const SweepRecord& sweep);
/// Reads a results file's `sweep`; a field missing or of the wrong type fails naming its JSON
/// pointer. Members it does not know are kept and written back.
SweepRecord read_sweep(const JsonView& v);

}  // namespace pperf
