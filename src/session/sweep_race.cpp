#include "src/session/sweep_race.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "src/stats/race.h"

namespace pperf {

namespace {
double measured_s(const Result& r) {
  if (!r.measurement) return 0;
  return std::accumulate(r.measurement->step_ms.begin(), r.measurement->step_ms.end(), 0.0) / 1000;
}

const Configuration* configuration_named(const Config& config, const std::string& name) {
  for (const auto& c : config.configurations)
    if (c.name == name) return &c;
  return nullptr;
}

/// The seconds of a point's budget it did not measure: its seconds per round times the rounds
/// of the budget (max_steps) it did not take, its measuring capped at max_seconds. 0 without
/// rounds (no race ran).
double unmeasured_budget_s(const MeasureSettings& measure, size_t rounds, int64_t round_steps, double measured) {
  const size_t budget = budget_rounds(measure.max_steps, round_steps);
  if (rounds == 0 || budget <= rounds) return 0;
  const double whole = std::min(measured / static_cast<double>(rounds) * static_cast<double>(budget), measure.max_seconds);
  return std::max(0.0, whole - measured);
}

/// One workload's race from its results.
SweepRace race_of(const Config& config, const std::vector<const Result*>& points, const DecisionSettings& settings) {
  std::vector<RacePoint> race(points.size());
  size_t rounds = 0;
  bool priced = true;
  for (size_t i = 0; i < points.size(); ++i) {
    const Result& r = *points[i];
    const bool ok = r.status == ResultStatus::ok && r.measurement && r.cost && r.samples_per_step > 0;
    race[i].racing = ok;
    if (!ok) continue;
    race[i].round_ms = r.measurement->round_means_ms();
    race[i].steps = RoundSteps{r.measurement->step_ms, r.measurement->turns.round_steps};
    rounds = std::max(rounds, race[i].round_ms.size());
    const std::array<double, 2> hourly = r.cost->usd_per_hour_range.value_or(std::array<double, 2>{r.cost->usd_per_hour, r.cost->usd_per_hour});
    const double samples = static_cast<double>(r.samples_per_step);
    race[i].cost_factor = {hourly[0] / samples, hourly[1] / samples};
    priced = priced && hourly[0] > 0;
  }
  RaceReplay replay = replay_race(race, rounds, settings);
  if (rounds == 0) {
    // Measured without turns (--sequential, --in-process): no race ran; the best is the cheapest
    // by estimate, and nothing is decided.
    std::optional<size_t> cheapest;
    for (size_t i = 0; i < points.size(); ++i)
      if (race[i].racing && (!cheapest || points[i]->cost->usd_per_1m_samples < points[*cheapest]->cost->usd_per_1m_samples))
        cheapest = i;
    for (size_t i = 0; i < points.size(); ++i)
      replay.final_look.verdict[i] = !race[i].racing ? RaceVerdict::out : cheapest == i ? RaceVerdict::best : RaceVerdict::undecided;
    replay.final_look.best = cheapest.value_or(0);
    replay.final_look.finished = false;
    replay.final_look.why = "";
  }
  const RaceLook& last = replay.final_look;
  SweepRace out;
  out.workload = points.front()->workload;
  out.rounds = static_cast<int64_t>(rounds);
  out.round_steps = points.front()->measurement ? points.front()->measurement->turns.round_steps : 0;
  out.confidence = settings.confidence;
  out.comparison_confidence = race_comparison_confidence(settings.confidence, points.size());
  out.equivalence_pct = settings.equivalence_pct;
  out.method = "each point against the best: confidence sequence over paired rounds at alpha/(k-1) (Bonferroni)";
  out.finished = last.finished && priced;
  out.stop = rounds == 0     ? "no race: measured without turns (--sequential or --in-process); the best is the cheapest by estimate"
             : last.finished ? last.why
                             : "the budget, before the race was decided (the best is the cheapest by estimate)";
  if (std::any_of(race.begin(), race.end(), [](const RacePoint& p) { return p.racing; }))
    out.best = points[last.best]->configuration;
  for (size_t i = 0; i < points.size(); ++i) {
    const Result& r = *points[i];
    SweepPoint row;
    row.configuration = r.configuration;
    row.measured_s = measured_s(r);
    out.measured_s += row.measured_s;
    if (const Configuration* c = configuration_named(config, r.configuration))
      row.values.insert(c->sweep_values.begin(), c->sweep_values.end());
    row.rounds = static_cast<int64_t>(race[i].round_ms.size());
    if (r.cost) {
      row.usd_per_1m_samples = r.cost->usd_per_1m_samples;
      row.usd_per_1m_samples_ci95 = r.cost->usd_per_1m_samples_ci95;
    }
    if (replay.left_after_round[i]) {
      row.verdict = "eliminated";
      row.left_after_round = static_cast<int64_t>(*replay.left_after_round[i]);
      row.cost_ratio_bounds = replay.left_cost_ratio[i];
      row.compared_with = points[replay.best_when_left[i]]->configuration;
    } else if (!race[i].racing || last.verdict[i] == RaceVerdict::out) {
      row.verdict = "failed";  // no result, or it stopped taking turns without the race eliminating it
    } else {
      row.verdict = to_string(last.verdict[i]);
      row.cost_ratio_bounds = last.cost_ratio[i];
      if (i != last.best) row.compared_with = points[last.best]->configuration;
      if (last.verdict[i] == RaceVerdict::equivalent) out.equivalent.push_back(r.configuration);
    }
    out.saved_s += unmeasured_budget_s(config.measure, race[i].round_ms.size(), out.round_steps, row.measured_s);
    out.points.push_back(std::move(row));
  }
  // Cheapest first; unpriced points last, in their order.
  std::stable_sort(out.points.begin(), out.points.end(), [](const SweepPoint& a, const SweepPoint& b) {
    if (a.usd_per_1m_samples.has_value() != b.usd_per_1m_samples.has_value()) return a.usd_per_1m_samples.has_value();
    return a.usd_per_1m_samples && *a.usd_per_1m_samples < *b.usd_per_1m_samples;
  });
  const double whole_s = out.measured_s + out.saved_s;
  out.saved_fraction = whole_s > 0 ? out.saved_s / whole_s : 0;
  return out;
}
}  // namespace

std::optional<SweepRecord> sweep_race_record(const Config& config, const std::vector<Result>& results,
                                             const DecisionSettings& raced_with) {
  if (!config.sweep) return std::nullopt;
  SweepRecord out;
  out.base = config.sweep->base;
  out.grid = config.sweep->grid;
  for (size_t a = 0; a < config.sweep->axes.size(); ++a) out.axes.push_back({config.sweep->axes[a], config.sweep->values[a]});
  std::vector<std::string> workloads;
  for (const auto& r : results)
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end()) workloads.push_back(r.workload);
  for (const auto& w : workloads) {
    std::vector<const Result*> points;
    for (const auto& r : results)
      if (r.workload == w) points.push_back(&r);
    out.races.push_back(race_of(config, points, raced_with));
  }
  return out;
}

}  // namespace pperf
