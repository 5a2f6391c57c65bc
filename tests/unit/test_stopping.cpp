#include <gtest/gtest.h>

#include <cmath>

#include "bench/stats/stopping.h"

using namespace pperf;

TEST(Stopping, MaxStepsFiresAtTheCount) {
  auto rule = stop_at_max_steps(3);
  EXPECT_FALSE(rule->check({1, 1}, 0));
  EXPECT_EQ(rule->check({1, 1, 1}, 0).value(), "max_steps (3)");
}

TEST(Stopping, MaxSecondsFiresOnElapsedTime) {
  auto rule = stop_at_max_seconds(2.5);
  EXPECT_FALSE(rule->check({1}, 2.4));
  EXPECT_TRUE(rule->check({1}, 2.5));
}

TEST(Stopping, TargetRelCiWaitsForMinStepsThenForPrecision) {
  auto rule = stop_at_target_rel_ci(10, 0.05);
  std::vector<double> steady(9, 100.0);
  EXPECT_FALSE(rule->check(steady, 0)) << "fewer than min_steps";
  steady.push_back(100.0);
  EXPECT_TRUE(rule->check(steady, 0)) << "zero spread meets any target";

  // Alternating 50/150: the median's CI spans 50..150, half-width 50 % of the median.
  auto fresh = stop_at_target_rel_ci(10, 0.05);
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) {
    noisy.push_back(i % 2 ? 150.0 : 50.0);
    EXPECT_FALSE(fresh->check(noisy, 0));
  }
}

TEST(Stopping, TargetRelCiNeedsSixStepsWhateverMinStepsSays) {
  auto rule = stop_at_target_rel_ci(2, 0.5);
  std::vector<double> steps;
  for (int i = 0; i < 5; ++i) {
    steps.push_back(100.0);
    EXPECT_FALSE(rule->check(steps, 0)) << steps.size() << " steps";
  }
  steps.push_back(100.0);
  EXPECT_TRUE(rule->check(steps, 0));
}

TEST(Stopping, TargetRelCiNeverFiresOnNonPositiveOrNanSteps) {
  auto zero = stop_at_target_rel_ci(6, 0.05);
  std::vector<double> zeros;
  for (int i = 0; i < 30; ++i) {
    zeros.push_back(i % 2 ? 0.0 : -1.0);  // median <= 0 used to make the relative width 0
    EXPECT_FALSE(zero->check(zeros, 0));
  }
  auto nan = stop_at_target_rel_ci(6, 0.05);
  std::vector<double> with_nan(10, 100.0);
  with_nan[3] = std::nan("");
  for (size_t n = 1; n <= with_nan.size(); ++n)
    EXPECT_FALSE(nan->check(std::vector<double>(with_nan.begin(), with_nan.begin() + n), 0));
}

TEST(Stopping, TargetRelCiNeedsTheMeanPreciseTooNotOnlyTheMedian) {
  // A steady median with rare 10x steps: the median's CI is tight, the mean's (what is billed)
  // is not, so the rule goes on.
  auto rule = stop_at_target_rel_ci(6, 0.02);
  std::vector<double> steps;
  for (int i = 0; i < 60; ++i) {
    steps.push_back(i % 10 == 5 ? 1000.0 : 100.0 + (i % 3));
    EXPECT_FALSE(rule->check(steps, 0)) << steps.size();
  }
}

TEST(Stopping, FirstRuleInOrderWins) {
  MeasureSettings s;
  s.max_steps = 5;
  s.max_seconds = 1;
  s.min_steps = 1;
  s.target_rel_ci = 1e-9;
  auto rules = make_stop_rules(s);
  std::vector<double> noisy = {1, 2, 3, 4, 5};
  EXPECT_EQ(first_stop_reason(rules, noisy, 0.1).value(), "max_steps (5)");
  EXPECT_EQ(first_stop_reason(rules, {1, 2}, 1.5).value(), "max_seconds (1 s)");
  EXPECT_FALSE(first_stop_reason(rules, {1, 2}, 0.5));
}
