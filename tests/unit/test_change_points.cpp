#include <gtest/gtest.h>

#include <random>

#include "src/stats/change_points.h"

using namespace pperf;

namespace {
std::vector<double> noisy(std::vector<double> levels, double cv, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0, cv);
  for (double& v : levels) v *= std::exp(d(rng));
  return levels;
}
std::vector<double> steps(std::initializer_list<std::pair<size_t, double>> parts) {
  std::vector<double> out;
  for (const auto& [n, level] : parts) out.insert(out.end(), n, level);
  return out;
}
}  // namespace

TEST(ChangePoints, FindsOneStepWhereItBegins) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto x = noisy(steps({{12, 100}, {10, 110}}), 0.02, seed);
    EXPECT_EQ(change_points(x), (std::vector<size_t>{12})) << "seed " << seed;
  }
}

TEST(ChangePoints, NoiseAloneHasNone) {
  for (uint64_t seed = 1; seed <= 50; ++seed)
    EXPECT_TRUE(change_points(noisy(steps({{30, 100}}), 0.03, seed)).empty()) << "seed " << seed;
}

TEST(ChangePoints, OneOddNightIsNotAChange) {
  auto x = noisy(steps({{20, 100}}), 0.01, 7);
  x[9] = 150;  // an outlier in the middle
  EXPECT_TRUE(change_points(x).empty());
  x = noisy(steps({{20, 100}}), 0.01, 8);
  x.back() = 150;  // tonight alone: not a level yet (compare judges it)
  EXPECT_TRUE(change_points(x).empty());
  x.push_back(151);  // a second night at the new level: now it is one
  EXPECT_EQ(change_points(x), (std::vector<size_t>{19}));
}

TEST(ChangePoints, TwoStepsAndTheirLevels) {
  const auto x = noisy(steps({{8, 50}, {8, 40}, {8, 60}}), 0.01, 3);
  const auto s = fit_segments(x);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].begin, 8u);
  EXPECT_EQ(s[2].begin, 16u);
  EXPECT_NEAR(s[0].level, 50, 1.5);
  EXPECT_NEAR(s[1].level, 40, 1.2);
  EXPECT_NEAR(s[2].level, 60, 1.8);
}

TEST(ChangePoints, TinyShiftsAreMergedAndExactValuesWork) {
  // A 0.5 % shift in an otherwise exact series is real but below min_rel_change.
  EXPECT_TRUE(change_points(steps({{10, 100}, {10, 100.5}})).empty());
  EXPECT_EQ(change_points(steps({{10, 100}, {10, 103}})), (std::vector<size_t>{10}));
  EXPECT_TRUE(change_points({}).empty());
  EXPECT_TRUE(change_points({5, 6, 7}).empty());
  EXPECT_THROW(change_points({1, 0, 2, 3}), std::invalid_argument);
}

TEST(ChangePoints, AChangeNeedsEnoughRunsOnBothSides) {
  // Perfectly separated levels: the U test between them decides. 5 runs then 3: the smallest
  // two-sided p is 2/56 = 0.036 > alpha 0.01, not yet a change; 8 then 4: 2/495, a change.
  EXPECT_TRUE(change_points(steps({{5, 100}, {3, 112}})).empty());
  EXPECT_EQ(change_points(steps({{8, 100}, {4, 112}})), (std::vector<size_t>{8}));
  ChangePointOptions lax;
  lax.alpha = 0.05;
  EXPECT_EQ(change_points(steps({{5, 100}, {3, 112}}), lax), (std::vector<size_t>{5}));
}
