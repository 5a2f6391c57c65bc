// Boundaries of the decisions (issue 28's mutation check found these unpinned): a value exactly at
// a documented edge must fall on the documented side. Each edge is hit exactly: by literal
// figures, or by a threshold computed from the same inputs with the library's own function.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "src/stats/change_points.h"
#include "src/stats/compare_stats.h"
#include "src/stats/decision.h"
#include "src/stats/intervals.h"
#include "src/stats/stopping.h"

using namespace pperf;

// decision.h: equivalent when the interval lies within +-equivalence_pct (ends included), else
// cheaper when it is above 0, dearer when below (an end at 0 is neither).
TEST(DecisionBoundaries, VerdictAtTheEdges) {
  EXPECT_EQ(verdict_of({-2, 2}, 2), CostVerdict::equivalent);
  EXPECT_EQ(verdict_of({-2.5, 2}, 2), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({0, 5}, 2), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({0.5, 5}, 2), CostVerdict::cheaper);
  EXPECT_EQ(verdict_of({-5, 0}, 2), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({-5, -0.5}, 2), CostVerdict::dearer);
}

// Two paired rounds are the fewest with an interval (one degree of freedom); one has none.
TEST(DecisionBoundaries, PairedIntervalFromTwoRounds) {
  EXPECT_FALSE(paired_time_ratio_interval({100}, {90}));
  const auto two = paired_time_ratio_interval({100, 102}, {90, 93});
  ASSERT_TRUE(two);
  EXPECT_LT((*two)[0], 91.5 / 101);
  EXPECT_GT((*two)[1], 91.5 / 101);
}

// The target is met when the worst relative half-width (mean, median, every step's spread)
// equals it (<=): at max_steps one look decides, so a target equal to what the samples give
// stops, one just below does not.
TEST(DecisionBoundaries, TargetMetAtEquality) {
  std::vector<double> samples;
  for (int i = 0; i < 60; ++i) samples.push_back(100 + 10 * ((i * 7) % 13));
  const RelativePrecision p = relative_precision(samples);
  const double worst = std::max({p.mean, p.median, steps_rel_halfwidth(samples)});
  ASSERT_TRUE(std::isfinite(worst) && worst > 0);
  ASSERT_LE(unseen_tail_steps(worst), 60.0);  // the target is loose enough to stop at 60 steps
  EXPECT_TRUE(stop_at_target_rel_ci(60, worst, 60)->check(samples, 0));
  EXPECT_FALSE(stop_at_target_rel_ci(60, std::nextafter(worst, 0.0), 60)->check(samples, 0));
}

// change_points.h: 2 x min_segment values are the fewest that can hold a change, and a change
// stands when its U test's p-value is <= alpha. Four runs a side: exact two-sided p = 2/70.
TEST(DecisionBoundaries, ChangePointEdges) {
  const std::vector<double> before = {10, 10.1, 9.9, 10.05}, after = {20, 20.2, 19.8, 20.1};
  std::vector<double> series = before;
  series.insert(series.end(), after.begin(), after.end());
  std::vector<double> log_before, log_after;
  for (double v : before) log_before.push_back(std::log(v));
  for (double v : after) log_after.push_back(std::log(v));
  const double p = mann_whitney_u(log_before, log_after).p_value;
  EXPECT_NEAR(p, 2.0 / 70, 1e-12);
  ChangePointOptions o;
  o.min_segment = 4;
  o.alpha = p;  // exactly at alpha: the change stands
  const auto at = fit_segments(series, o);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[1].begin, 4u);
  o.alpha = std::nextafter(p, 0.0);
  EXPECT_EQ(fit_segments(series, o).size(), 1u);
}
