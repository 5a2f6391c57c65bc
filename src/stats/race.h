#pragma once
// Racing the points of a sweep (docs/statistics.md "Sweeps"): every point takes turns in the
// same rounds; after each round every point decided dearer per sample than the current best
// leaves the race, and the race ends when one point is left, when every point left is the same
// cost as the best within measure.equivalence_pct, or when the best costs at most
// equivalence_pct more per sample than every point left (it is then within the margin of the
// true best, even though the points left are not decided equivalent).
//
// The simultaneous statement: each comparison is decide_interleaved's confidence sequence (valid
// at every round at once) at level alpha / (k - 1), k the points that started. Let b* be the
// truly cheapest point. The k - 1 sequences between b* and each other point all cover their
// true ratio at every round with probability >= 1 - (k - 1) * alpha / (k - 1) = 1 - alpha
// (Bonferroni). On that event b* is never eliminated (that needs its interval wholly dearer than
// a point it is not dearer than), and every stop names a point within the margin of b*: one
// point left is b*; the interval of b* against the named best lies within the margin (all
// equivalent) or says the best costs at most the margin more than b* (the third stop). Which
// other points leave is not covered (a point inside the margin may leave); a race stopped by the
// budget names its cheapest point by estimate, with no such guarantee (b* is then among the
// points left, on the same event). The level stays alpha / (k - 1) as points leave: a step-down
// alpha / (m - 1) over the m points left has no such argument (docs/statistics.md).
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "src/stats/decision.h"

namespace pperf {

/// One point's side of the race.
struct RacePoint {
  std::vector<double> round_ms;  // mean step time of each round it measured, ms (round j: the race's round j)
  /// Its cost per sample relative to any one reference, per ms of step time: hourly price
  /// ratio [lo, hi] over samples per step (the same reference for every point).
  PriceRatio cost_factor{1, 1};
  bool racing = true;  // false: already out (eliminated before, or failed)
  /// Its timed steps round by round, when known (round_steps > 0; round_ms are then their
  /// rounds' means): the comparisons read the rounds' correlation from them (decide_interleaved).
  RoundSteps steps;
};

enum class RaceVerdict { best, equivalent, eliminated, undecided, out };
std::string to_string(RaceVerdict v);

/// The race after one look.
struct RaceLook {
  size_t best = 0;                  // the racing point of least estimated cost per sample
  std::vector<RaceVerdict> verdict;  // per point; `out` for points not racing
  /// Per point: its cost per sample over the best's, the anytime interval at the comparison's
  /// confidence (nullopt for the best itself, points out, or without spread).
  std::vector<std::optional<std::array<double, 2>>> cost_ratio;
  std::vector<double> cost_ratio_estimate;  // point estimate (1 for the best; 0 for points out)
  /// One point left, every other racing point equivalent, or the best within the margin of each.
  bool finished = false;
  std::string why;  // "one point left", "every point left is the same cost ...", "the best costs at most ...", ""
};

/// Level of each comparison: 1 - (1 - confidence) / (k - 1) for k >= 2 points that started.
double race_comparison_confidence(double confidence, size_t points_started);

/// Whether a cost-ratio interval (a point's cost per sample over the best's) says the best costs
/// at most equivalence_pct % more per sample than that point: lower bound >= 1 / (1 + pct / 100).
bool race_within_margin(const std::array<double, 2>& cost_ratio, double equivalence_pct);

/// One look after the rounds so far (pure). Points' series are paired by round index: racing
/// points must all have the same number of rounds. The best is compared with each racing point
/// by decide_interleaved at race_comparison_confidence(settings.confidence, points.size())
/// (min_rounds and equivalence_pct as given); a point decided dearer is `eliminated`, one within
/// the margin `equivalent`, else `undecided`. Finished when one point is left, when every other
/// racing point is `equivalent`, or when each is `equivalent` or has its cost ratio's lower bound
/// >= 1 / (1 + equivalence_pct / 100) (race_within_margin). With no racing point: best = 0, finished.
RaceLook race_look(const std::vector<RacePoint>& points, const DecisionSettings& settings);

/// A whole race replayed from its points' series (a point's series ends where it left or
/// failed; `rounds` is how many rounds the race ran): the looks after rounds 1..rounds, with
/// points whose series are shorter than a round taken out before it.
struct RaceReplay {
  size_t rounds = 0;
  RaceLook final_look;                         // after the last round
  std::vector<std::optional<size_t>> left_after_round;  // per point: the round whose look eliminated it
  /// Per eliminated point: its look at elimination (cost ratio against the best of that round).
  std::vector<std::optional<std::array<double, 2>>> left_cost_ratio;
  std::vector<size_t> best_when_left;
};
RaceReplay replay_race(const std::vector<RacePoint>& points, size_t rounds, const DecisionSettings& settings);

}  // namespace pperf
