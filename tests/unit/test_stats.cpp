#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "src/stats/stats.h"

using namespace pperf;

TEST(Stats, MeanStdevCv) {
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(mean(v), 5.0);
  EXPECT_DOUBLE_EQ(stdev(v), std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(cv(v), std::sqrt(32.0 / 7.0) / 5.0);
  EXPECT_DOUBLE_EQ(stdev({3.0}), 0.0);
}

TEST(Stats, PercentileInterpolatesBetweenRanks) {
  const std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 5), 1.15);
  EXPECT_DOUBLE_EQ(percentile(v, 95), 3.85);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4.0);
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
}

TEST(Stats, MedianCiRanksMatchExactBinomial) {
  // P(B(10,.5) <= 1) = 11/1024 <= .025 < P(B <= 2) = 56/1024.
  EXPECT_EQ(median_ci_ranks(10), (std::array<size_t, 2>{2, 9}));
  // Published order-statistic table for n = 100: ranks 40 and 61.
  EXPECT_EQ(median_ci_ranks(100), (std::array<size_t, 2>{40, 61}));
  // n = 6: 1/64 <= .025, so the extremes already give 95 %.
  EXPECT_EQ(median_ci_ranks(6), (std::array<size_t, 2>{1, 6}));
  // n = 5 cannot reach 95 %: the full range is the honest answer.
  EXPECT_EQ(median_ci_ranks(5), (std::array<size_t, 2>{1, 5}));
  EXPECT_EQ(median_ci_ranks(1), (std::array<size_t, 2>{1, 1}));
}

TEST(Stats, MedianCi95PicksOrderStatistics) {
  std::vector<double> v;
  for (int i = 10; i >= 1; --i) v.push_back(i * 1.5);  // unsorted on purpose
  EXPECT_EQ(median_ci95(v), (std::array<double, 2>{3.0, 13.5}));
}

TEST(Stats, MedianCi95CoversTheTrueMedianAboutNinetyFivePercent) {
  // Exponential(1) has median ln 2; a 95 % interval must cover it in ~95 % of trials.
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> draw(1.0);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> sample(40);
    for (auto& x : sample) x = draw(rng);
    auto ci = median_ci95(sample);
    covered += ci[0] <= std::log(2.0) && std::log(2.0) <= ci[1];
  }
  const double coverage = static_cast<double>(covered) / trials;
  EXPECT_GE(coverage, 0.93);
  EXPECT_LE(coverage, 0.995);
}

TEST(Stats, SummarizeFillsEveryField) {
  const std::vector<double> v = {10, 12, 11, 13, 10, 11, 12, 14, 11, 10};
  Summary s = summarize(v);
  EXPECT_EQ(s.n, 10u);
  EXPECT_DOUBLE_EQ(s.median, 11.0);
  EXPECT_DOUBLE_EQ(s.mean, 11.4);
  EXPECT_DOUBLE_EQ(s.p5, percentile(v, 5));
  EXPECT_DOUBLE_EQ(s.p95, percentile(v, 95));
  EXPECT_EQ(s.ci95, (std::array<double, 2>{10.0, 13.0}));
  EXPECT_DOUBLE_EQ(s.rel_ci_halfwidth(), 1.5 / 11.0);
}
