#include "src/stats/race.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pperf {

std::string to_string(RaceVerdict v) {
  switch (v) {
    case RaceVerdict::best: return "best";
    case RaceVerdict::equivalent: return "equivalent";
    case RaceVerdict::eliminated: return "eliminated";
    case RaceVerdict::undecided: return "undecided";
    case RaceVerdict::out: return "out";
  }
  return "out";
}

bool race_within_margin(const std::array<double, 2>& cost_ratio, double equivalence_pct) {
  return cost_ratio[0] * (1 + equivalence_pct / 100) >= 1;
}

double race_comparison_confidence(double confidence, size_t points_started) {
  if (points_started < 2) return confidence;
  return 1 - (1 - confidence) / static_cast<double>(points_started - 1);
}

namespace {
double estimated_cost(const RacePoint& p) {
  if (p.round_ms.empty()) return 0;
  const double mean = std::accumulate(p.round_ms.begin(), p.round_ms.end(), 0.0) / p.round_ms.size();
  return mean * std::sqrt(p.cost_factor[0] * p.cost_factor[1]);
}

/// p against the best b, from their steps when both have them.
Decision compare_points(const RacePoint& b, const RacePoint& p, PriceRatio ratio, const DecisionSettings& each) {
  if (b.steps.round_steps > 0 && p.steps.round_steps > 0) return decide_interleaved(b.steps, p.steps, ratio, each);
  return decide_interleaved(b.round_ms, p.round_ms, ratio, each);
}
}  // namespace

RaceLook race_look(const std::vector<RacePoint>& points, const DecisionSettings& settings) {
  RaceLook look;
  look.verdict.assign(points.size(), RaceVerdict::out);
  look.cost_ratio.assign(points.size(), std::nullopt);
  look.cost_ratio_estimate.assign(points.size(), 0);
  std::optional<size_t> best;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].racing && (!best || estimated_cost(points[i]) < estimated_cost(points[*best]))) best = i;
  if (!best) {
    look.finished = true;
    look.why = "no point left";
    return look;
  }
  look.best = *best;
  look.verdict[*best] = RaceVerdict::best;
  look.cost_ratio_estimate[*best] = 1;
  DecisionSettings each = settings;
  each.confidence = race_comparison_confidence(settings.confidence, points.size());
  // No early looks in the race (issue 40 item 9 added them to decisions): its family-wise
  // argument and its simulations (docs/statistics.md, Sweeps) are those of the sequence alone.
  each.early_look_rounds = 0;
  const RacePoint& b = points[*best];
  size_t left = 1, equivalent = 0, within = 0;
  for (size_t j = 0; j < points.size(); ++j) {
    if (j == *best || !points[j].racing) continue;
    const RacePoint& p = points[j];
    const PriceRatio ratio{p.cost_factor[0] / b.cost_factor[1], p.cost_factor[1] / b.cost_factor[0]};
    const Decision d = compare_points(b, p, ratio, each);
    const double best_cost = estimated_cost(b);
    look.cost_ratio_estimate[j] = best_cost > 0 ? estimated_cost(p) / best_cost : 0;
    if (d.improvement_pct_bounds)
      look.cost_ratio[j] = {1 - (*d.improvement_pct_bounds)[1] / 100, 1 - (*d.improvement_pct_bounds)[0] / 100};
    switch (d.verdict) {
      case CostVerdict::dearer: look.verdict[j] = RaceVerdict::eliminated; break;
      case CostVerdict::equivalent: look.verdict[j] = RaceVerdict::equivalent, ++left, ++equivalent; break;
      default: look.verdict[j] = RaceVerdict::undecided, ++left; break;
    }
    // The best within the margin of this point (no look before min_rounds, as for the verdicts).
    const bool looked = std::min(b.round_ms.size(), p.round_ms.size()) >= settings.min_rounds;
    if (look.verdict[j] == RaceVerdict::equivalent ||
        (look.verdict[j] == RaceVerdict::undecided && looked && look.cost_ratio[j] &&
         race_within_margin(*look.cost_ratio[j], settings.equivalence_pct)))
      ++within;
  }
  if (left == 1) {
    look.finished = true;
    look.why = "one point left";
  } else if (equivalent + 1 == left) {
    look.finished = true;
    look.why = fmt::format("every point left is the same cost per sample as the best within ±{:g} %", settings.equivalence_pct);
  } else if (within + 1 == left) {
    look.finished = true;
    look.why = fmt::format("the best costs at most {:g} % more per sample than any point left", settings.equivalence_pct);
  }
  return look;
}

RaceReplay replay_race(const std::vector<RacePoint>& points, size_t rounds, const DecisionSettings& settings) {
  RaceReplay replay;
  replay.rounds = rounds;
  replay.left_after_round.assign(points.size(), std::nullopt);
  replay.left_cost_ratio.assign(points.size(), std::nullopt);
  replay.best_when_left.assign(points.size(), 0);
  std::vector<bool> racing(points.size());
  for (size_t i = 0; i < points.size(); ++i) racing[i] = points[i].racing;
  replay.final_look = race_look(points, settings);  // what stands with no round (rounds == 0)
  for (size_t r = 1; r <= rounds; ++r) {
    std::vector<RacePoint> now(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
      if (points[i].round_ms.size() < r) racing[i] = false;  // failed, or left before
      now[i].cost_factor = points[i].cost_factor;
      now[i].racing = racing[i];
      if (!racing[i]) continue;
      now[i].round_ms.assign(points[i].round_ms.begin(), points[i].round_ms.begin() + r);
      const RoundSteps& steps = points[i].steps;
      const size_t n = r * static_cast<size_t>(std::max<int64_t>(0, steps.round_steps));
      if (steps.round_steps > 0 && steps.step_ms.size() >= n)
        now[i].steps = RoundSteps{{steps.step_ms.begin(), steps.step_ms.begin() + n}, steps.round_steps};
    }
    replay.final_look = race_look(now, settings);
    for (size_t i = 0; i < points.size(); ++i)
      if (replay.final_look.verdict[i] == RaceVerdict::eliminated) {
        racing[i] = false;
        replay.left_after_round[i] = r;
        replay.left_cost_ratio[i] = replay.final_look.cost_ratio[i];
        replay.best_when_left[i] = replay.final_look.best;
      }
  }
  return replay;
}

}  // namespace pperf
