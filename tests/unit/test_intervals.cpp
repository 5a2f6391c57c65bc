#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "bench/stats/intervals.h"

using namespace pperf;

namespace {
const std::vector<double> kSix = {10, 12, 11, 10, 13, 11};
}

TEST(Intervals, MeanIntervalIsStudentT) {
  // scipy: mean -+ t.ppf(0.975, 5) * std(ddof=1) / sqrt(6)
  const auto ci = mean_interval(kSix, 0.95);
  ASSERT_TRUE(ci);
  EXPECT_NEAR((*ci)[0], 9.939828974494729, 1e-9);
  EXPECT_NEAR((*ci)[1], 12.393504358838603, 1e-9);
  const auto wide = mean_interval(kSix, 0.95, 2);
  EXPECT_NEAR((*wide)[1] - (*wide)[0], 2 * ((*ci)[1] - (*ci)[0]), 1e-9);
}

TEST(Intervals, NoIntervalBelowSixStepsOrForInvalidSteps) {
  const std::vector<double> five(kSix.begin(), kSix.begin() + 5);
  EXPECT_FALSE(mean_interval(five, 0.95));
  EXPECT_FALSE(median_interval(five, 0.95));
  std::vector<double> nan = kSix;
  nan[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(mean_interval(nan, 0.95));
  EXPECT_FALSE(median_interval(nan, 0.95)) << "no [nan, 107]: NaN never reaches a sort";
  std::vector<double> zero = kSix;
  zero[0] = 0;
  EXPECT_FALSE(median_interval(zero, 0.95));
  EXPECT_FALSE(valid_step_times(zero));
  EXPECT_TRUE(valid_step_times(kSix));
}

TEST(Intervals, MedianIntervalUsesBinomialRanksAndWidensOutward) {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  // n = 20 at 95 %: ranks 6 and 15.
  EXPECT_EQ(*median_interval(v, 0.95), (std::array<double, 2>{6, 15}));
  // Widened 1.5x: the ranks move from 4.5 away from the centre 10.5 to 6.75 away.
  EXPECT_EQ(*median_interval(v, 0.95, 1.5), (std::array<double, 2>{3, 18}));
}

TEST(Intervals, LagOneAutocorrelationMatchesNumpyAndTheRunningSums) {
  EXPECT_NEAR(lag1_autocorrelation_log(kSix), -0.4909001229835828, 1e-12);
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> d(4, 0.1);
  std::vector<double> xs;
  IncrementalPrecision inc;
  for (int i = 0; i < 500; ++i) {
    xs.push_back(d(rng) + (i % 7));  // some structure
    inc.add(xs.back());
    if (i >= 2) ASSERT_NEAR(inc.lag1_r(), lag1_autocorrelation_log(xs), 1e-9) << i;
  }
  // The running check agrees with the reported interval (n - 1 = 499 > 200: the expansion of t).
  const auto ci = mean_interval(xs, 0.95, autocorrelation_widening(inc.lag1_r(), xs.size()));
  EXPECT_NEAR(inc.mean_rel_halfwidth(0.95), ((*ci)[1] - (*ci)[0]) / 2 / inc.mean(), 1e-9);
  const std::vector<double> first(xs.begin(), xs.begin() + 50);
  IncrementalPrecision small;
  for (double x : first) small.add(x);
  const auto ci50 = mean_interval(first, 0.95, autocorrelation_widening(small.lag1_r(), first.size()));
  EXPECT_NEAR(small.mean_rel_halfwidth(0.95), ((*ci50)[1] - (*ci50)[0]) / 2 / small.mean(), 1e-12);
}

TEST(Intervals, WideningNeverNarrowsAndGrowsWithR) {
  EXPECT_DOUBLE_EQ(autocorrelation_widening(-0.5, 1000), 1.0);
  EXPECT_NEAR(autocorrelation_widening(0.5, 1000000), std::sqrt(3.0), 1e-5);
  EXPECT_GT(autocorrelation_widening(0.5, 20), autocorrelation_widening(0.5, 1000));
  EXPECT_LE(autocorrelation_widening(0.99, 1000), std::sqrt(1.9 / 0.1) + 1e-12);
}

TEST(Intervals, StoppedOnTargetReportsAtTheCorrectedLevel) {
  const StepTimeEstimate stopped = step_time_estimate(kSix, true), fixed = step_time_estimate(kSix, false);
  EXPECT_DOUBLE_EQ(stopped.ci_nominal_level, kStoppedNominalLevel);
  EXPECT_DOUBLE_EQ(fixed.ci_nominal_level, 0.95);
  EXPECT_GT((*stopped.mean_ci95_ms)[1], (*fixed.mean_ci95_ms)[1]);
  EXPECT_DOUBLE_EQ(fixed.mean_ms, 67.0 / 6);
  EXPECT_DOUBLE_EQ(fixed.median_ms, 11);
}

TEST(Intervals, MannKendallSeesATrend) {
  std::vector<double> up, flat;
  for (int i = 0; i < 10; ++i) up.push_back(i + 1), flat.push_back(i % 2 ? 5 : 6);
  const MannKendall mk = mann_kendall(up);
  EXPECT_DOUBLE_EQ(mk.s, 45);
  EXPECT_NEAR(mk.z, 44 / std::sqrt(10.0 * 9 * 25 / 18), 1e-12);
  EXPECT_LT(mk.p_value, 1e-3);
  std::vector<double> down(up.rbegin(), up.rend());
  EXPECT_LT(mann_kendall(down).z, -3.9);
  EXPECT_GT(mann_kendall(flat).p_value, 0.5);
  // Long runs are binned: 100,000 falling steps cost no more than kMannKendallMaxPoints.
  std::vector<double> warm(100000);
  for (size_t i = 0; i < warm.size(); ++i) warm[i] = 100 + 50.0 * std::exp(-double(i) / 20000);
  EXPECT_LT(mann_kendall(warm).z, -10);
}
