#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "src/stats/intervals.h"

using namespace pperf;

namespace {
/// 60 steps: a slow wave, a ripple and a slow step every 17th.
std::vector<double> wave() {
  std::vector<double> x;
  for (int i = 0; i < 60; ++i) x.push_back(100 + 10 * std::sin(i / 8.0) + (i * 37 % 11) + (i % 17 == 3 ? 60 : 0));
  return x;
}
}  // namespace

TEST(Intervals, MeanIntervalIsBatchMeansWithHallsCorrectionAndWidening) {
  // An independent reference (numpy/scipy, tests/unit/intervals_reference.py): 6 batch means,
  // t(5), Hall's inverse with the batch means' skew, widened sqrt((1 + r')/(1 - r')) for their
  // lag-1 r = 0.160 (factor 1.540; the steps' lag-1 implies less).
  const auto ci = mean_interval(wave(), 0.95);
  ASSERT_TRUE(ci);
  // (Boost's and scipy's t quantiles agree to ~1e-10.)
  EXPECT_NEAR((*ci)[0], 93.31245735132562, 1e-7);
  EXPECT_NEAR((*ci)[1], 119.2842692210858, 1e-7);
  const StepIntervals s = step_intervals(wave());
  EXPECT_EQ(s.mean_ci, ci);
  EXPECT_GT(s.widening, 1) << "correlated batches widen the median's interval too";
}

// Issue 60: a run whose steps switch between ~14 and ~30 ms for 9-17 steps at a time (lag-1 0.85)
// has fewer than one effectively independent batch of six; the widened t interval was [2.744,
// 35.526] ms (tests/unit/intervals_reference.py) for a mean of 23.588 ms whose fastest step was
// 13.5 ms. The rule: never beyond the fastest or the slowest step measured.
TEST(Intervals, MeanIntervalStaysWithinTheFastestAndSlowestStep) {
  std::vector<double> regimes;
  int i = 0;
  for (const auto& [run, slow] : std::vector<std::pair<int, bool>>{{9, true}, {13, false}, {17, true}, {11, false}, {10, true}})
    for (int s = 0; s < run; ++s, ++i) regimes.push_back((slow ? 30.0 : 14.0) + ((i * 37) % 11 - 5) * 0.1);
  ASSERT_EQ(regimes.size(), 60u);
  EXPECT_NEAR(lag1_autocorrelation_log(regimes), 0.8483, 5e-5);
  const StepTimeEstimate e = step_time_estimate(regimes);
  EXPECT_NEAR(e.mean_ms, 23.588333333333333, 1e-12);
  ASSERT_TRUE(e.mean_ci95_ms);
  EXPECT_EQ((*e.mean_ci95_ms)[0], 13.5) << "the fastest step, not 2.744 ms";
  EXPECT_EQ((*e.mean_ci95_ms)[1], 30.5) << "the slowest step, not 35.526 ms";
  // Inside the steps' range the interval is the batch means' own: the wave's exact figures above
  // hold, and its lower end is above its fastest step.
  const std::vector<double> w = wave();
  EXPECT_GT((*mean_interval(w, 0.95))[0], *std::min_element(w.begin(), w.end()));
}

TEST(Intervals, BatchMeansAreMeansOfNearEqualConsecutiveBlocks) {
  EXPECT_EQ(batch_means({1, 2, 3, 4, 5, 6, 7}, 3), (std::vector<double>{1.5, 3.5, 6}));
  EXPECT_EQ(batch_means({1, 2, 3, 4}, 4), (std::vector<double>{1, 2, 3, 4}));
}

TEST(Intervals, NoIntervalBelowTheMinimumForInvalidStepsOrWithoutSpread) {
  const std::vector<double> x = wave();
  const std::vector<double> short_of(x.begin(), x.begin() + (kMinCiSteps - 1));
  EXPECT_FALSE(mean_interval(short_of, 0.95));
  EXPECT_FALSE(median_interval(short_of, 0.95));
  std::vector<double> nan = x;
  nan[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(mean_interval(nan, 0.95));
  EXPECT_FALSE(median_interval(nan, 0.95)) << "NaN never reaches a sort";
  std::vector<double> zero = x;
  zero[0] = 0;
  EXPECT_FALSE(median_interval(zero, 0.95));
  EXPECT_FALSE(valid_step_times(zero));
  const std::vector<double> constant(200, 12.5);
  EXPECT_FALSE(mean_interval(constant, 0.95)) << "a zero-width interval would claim certainty";
  EXPECT_FALSE(median_interval(constant, 0.95));
  const StepTimeEstimate e = step_time_estimate(constant);
  EXPECT_DOUBLE_EQ(e.mean_ms, 12.5);
  EXPECT_FALSE(e.mean_ci95_ms);
}

TEST(Intervals, MedianIntervalUsesBinomialRanksAndWidensOutward) {
  std::vector<double> v;
  for (int i = 1; i <= 60; ++i) v.push_back(i);
  // n = 60 at 95 %: ranks 22 and 39 (scipy: the largest k with P(Binomial(60, 1/2) < k) <= 2.5 %).
  EXPECT_EQ(*median_interval(v, 0.95), (std::array<double, 2>{22, 39}));
  // Widened 1.5x: the ranks move from 8.5 away from the centre 30.5 to 12.75 away.
  EXPECT_EQ(*median_interval(v, 0.95, 1.5), (std::array<double, 2>{17, 44}));
}

TEST(Intervals, LagOneAutocorrelationMatchesNumpy) {
  EXPECT_NEAR(lag1_autocorrelation_log({10, 12, 11, 10, 13, 11}), -0.4909001229835828, 1e-12);
}

TEST(Intervals, WideningNeverNarrowsAndGrowsWithR) {
  EXPECT_DOUBLE_EQ(autocorrelation_widening(-0.5, 1000), 1.0);
  EXPECT_NEAR(autocorrelation_widening(0.5, 1000000), std::sqrt(3.0), 1e-5);
  EXPECT_GT(autocorrelation_widening(0.5, 20), autocorrelation_widening(0.5, 1000));
  EXPECT_LE(autocorrelation_widening(0.99, 1000), std::sqrt(1.9 / 0.1) + 1e-12);
}

TEST(Intervals, BlockMeansLagOneIsTheAr1CovarianceOverTheVariance) {
  // Summed term by term: neighbouring blocks' covariance and a block's variance, rho^|i-j|.
  for (double rho : {0.3, 0.8, 0.95})
    for (int b : {1, 3, 10, 25}) {
      double cov = 0, var = 0;
      for (int i = 0; i < b; ++i)
        for (int j = 0; j < b; ++j) cov += std::pow(rho, b + j - i), var += std::pow(rho, std::abs(i - j));
      EXPECT_NEAR(ar1_block_means_lag1(rho, b), cov / var, 1e-12) << rho << " " << b;
    }
  EXPECT_NEAR(ar1_block_means_lag1(0.8, 1), 0.8, 1e-12);
  EXPECT_EQ(ar1_block_means_lag1(0, 10), 0);
  EXPECT_EQ(ar1_block_means_lag1(-0.4, 10), 0);
}

TEST(Intervals, MeanIntervalWidensForTheLagOneTheStepsImply) {
  // 120 steps of a log-AR(1) (lag-1 0.8, a periodic drive): the 12 batch means' own lag-1 is
  // negative, the steps' is 0.519, which implies 0.0896 for means of 10 steps
  // (tests/unit/intervals_reference.py; with the batch means' own r' = 0 the interval would be
  // [98.9683, 100.3567]).
  std::vector<double> x;
  double s = 0;
  for (int i = 0; i < 120; ++i) x.push_back(100 * std::exp(0.05 * (s = 0.8 * s + ((i * 7919) % 13 - 6) / 6.0)));
  const auto ci = mean_interval(x, 0.95);
  ASSERT_TRUE(ci);
  EXPECT_NEAR((*ci)[0], 98.89018715322267, 1e-7);
  EXPECT_NEAR((*ci)[1], 100.40908889034408, 1e-7);
}

TEST(Intervals, RelativePrecisionIsHalfTheIntervalOverTheEstimate) {
  const std::vector<double> x = wave();
  const RelativePrecision p = relative_precision(x);
  const StepTimeEstimate e = step_time_estimate(x);
  EXPECT_DOUBLE_EQ(p.mean, ((*e.mean_ci95_ms)[1] - (*e.mean_ci95_ms)[0]) / 2 / e.mean_ms);
  EXPECT_DOUBLE_EQ(p.median, ((*e.ci95_ms)[1] - (*e.ci95_ms)[0]) / 2 / e.median_ms);
  EXPECT_DOUBLE_EQ(e.ci_nominal_level, 0.95);
  EXPECT_TRUE(std::isinf(relative_precision(std::vector<double>(10, 1.0)).mean));
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
