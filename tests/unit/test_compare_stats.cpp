#include "bench/stats/compare_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace pperf {
namespace {

// Portable draws (std::normal_distribution differs between standard libraries).
double uniform01(std::mt19937_64& rng) { return (rng() >> 11) * 0x1.0p-53; }
double std_normal(std::mt19937_64& rng) {
  const double u1 = 1.0 - uniform01(rng), u2 = uniform01(rng);  // u1 in (0, 1]
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}
std::vector<double> lognormal(std::mt19937_64& rng, size_t n, double mu, double sigma) {
  std::vector<double> v(n);
  for (double& x : v) x = std::exp(mu + sigma * std_normal(rng));
  return v;
}

double sample_median(const std::vector<double>& v) {
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

// ---- Mann–Whitney U. Reference values: scipy 1.10.1 scipy.stats.mannwhitneyu(a, b,
// alternative='two-sided', method=...) with the method named in each comment.

TEST(MannWhitney, TinyExact) {
  // method='exact': U = 3.0, p = 0.4
  const MannWhitney r = mann_whitney_u({1.1, 2.3, 3.7}, {4.2, 5.0, 0.5, 6.1});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 3.0);
  EXPECT_NEAR(r.p_value, 0.4, 1e-12);
}

TEST(MannWhitney, MediumExact) {
  // method='exact': U = 22.0, p = 0.01115293375355295
  const std::vector<double> a{0.8, 1.9, 2.2, 3.5, 4.1, 4.4, 5.6, 6.3, 7.0, 9.2};
  const std::vector<double> b{2.5, 3.9, 5.1, 6.8, 7.4, 8.1, 8.8, 9.5, 10.3, 11.7, 12.2, 13.6};
  const MannWhitney r = mann_whitney_u(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 22.0);
  EXPECT_NEAR(r.p_value, 0.01115293375355295, 1e-12);
  // Swapping the samples: U_a + U_b = n_a n_b, same two-sided p.
  const MannWhitney s = mann_whitney_u(b, a);
  EXPECT_EQ(s.u, 120.0 - 22.0);
  EXPECT_NEAR(s.p_value, r.p_value, 1e-15);
}

TEST(MannWhitney, ExactUpToFiftyThenNormal) {
  std::vector<double> a, b;
  for (int i = 0; i < 25; ++i) a.push_back(i + 0.1 * (i % 3));
  for (int i = 0; i < 25; ++i) b.push_back(i + 6.55);
  // n = 50, method='exact': U = 171.0, p = 0.00549521438434097
  const MannWhitney r50 = mann_whitney_u(a, b);
  EXPECT_TRUE(r50.exact);
  EXPECT_EQ(r50.u, 171.0);
  EXPECT_NEAR(r50.p_value, 0.00549521438434097, 1e-12);
  // n = 51, method='asymptotic': U = 192.0, p = 0.012539196520682713
  b.push_back(3.33);
  const MannWhitney r51 = mann_whitney_u(a, b);
  EXPECT_FALSE(r51.exact);
  EXPECT_EQ(r51.u, 192.0);
  EXPECT_NEAR(r51.p_value, 0.012539196520682713, 1e-12);
}

TEST(MannWhitney, TiesUseTieCorrectedNormal) {
  // method='asymptotic': U = 8.5, p = 0.07826242947714618
  const MannWhitney r = mann_whitney_u({1, 2, 2, 3, 3, 3, 4}, {2, 3, 4, 4, 5, 5});
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u, 8.5);
  EXPECT_NEAR(r.p_value, 0.07826242947714618, 1e-12);
}

TEST(MannWhitney, IdenticalSamplesGiveOne) {
  // method='asymptotic': U = 12.5, p = 1.0; all-equal values: U = 4.5, p = 1.0
  const MannWhitney r = mann_whitney_u({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(r.u, 12.5);
  EXPECT_EQ(r.p_value, 1.0);
  // U at the centre of the exact distribution, method='exact': U = 2.0, p = 1.0 (2 * 4/6 capped)
  const MannWhitney e = mann_whitney_u({1, 4}, {2, 3});
  EXPECT_TRUE(e.exact);
  EXPECT_EQ(e.u, 2.0);
  EXPECT_EQ(e.p_value, 1.0);
  const MannWhitney c = mann_whitney_u({3, 3, 3}, {3, 3, 3});
  EXPECT_EQ(c.u, 4.5);
  EXPECT_EQ(c.p_value, 1.0);
}

TEST(MannWhitney, CompletelySeparated) {
  // method='exact': U = 0.0, p = 2 / C(10, 5) = 0.007936507936507936
  const MannWhitney r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0.0);
  EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-15);
  // 30 vs 30, method='asymptotic': U = 0.0 (900.0 swapped), p = 3.019859359162157e-11
  std::vector<double> lo, hi;
  for (int i = 0; i < 30; ++i) lo.push_back(i), hi.push_back(30 + i);
  const MannWhitney big = mann_whitney_u(lo, hi);
  EXPECT_FALSE(big.exact);
  EXPECT_EQ(big.u, 0.0);
  EXPECT_NEAR(big.p_value, 3.019859359162157e-11, 1e-20);
  EXPECT_EQ(mann_whitney_u(hi, lo).u, 900.0);
}

TEST(MannWhitney, RejectsEmpty) {
  EXPECT_THROW(mann_whitney_u({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({1.0}, {}), std::invalid_argument);
}

// ---- k-th pairwise difference and Hodges–Lehmann.

TEST(KthPairwiseDifference, MatchesBruteForce) {
  std::mt19937_64 rng(12345);
  const std::vector<std::pair<size_t, size_t>> sizes{{1, 1}, {1, 7}, {5, 3}, {17, 23}, {40, 40}};
  for (bool ties : {false, true}) {
    for (auto [nx, ny] : sizes) {
      std::vector<double> x(nx), y(ny);
      auto draw = [&] { return ties ? double(rng() % 5) - 2 : 10 * std_normal(rng); };
      for (double& v : x) v = draw();
      for (double& v : y) v = draw();
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      std::vector<double> all;
      for (double xi : x)
        for (double yj : y) all.push_back(yj - xi);
      std::sort(all.begin(), all.end());
      for (uint64_t k = 1; k <= all.size(); ++k)
        ASSERT_EQ(kth_pairwise_difference(x, y, k), all[k - 1])
            << "ties=" << ties << " nx=" << nx << " ny=" << ny << " k=" << k;
    }
  }
  EXPECT_THROW(kth_pairwise_difference({2, 1}, {1}, 1), std::invalid_argument);
  EXPECT_THROW(kth_pairwise_difference({1, 2}, {1}, 3), std::invalid_argument);
}

TEST(HodgesLehmann, TinyByHand) {
  // log baseline {0, 1, 3}, log candidate {2, 5}: differences {-1, 1, 2, 2, 4, 5}, median 2.
  // N = 6: K = round(3 - 1.96 * sqrt(6 * 6 / 12)) = round(-0.39) -> clamped to 1: CI [-1, 5].
  const RelativeChange r =
      hodges_lehmann_log_ratio({1, std::exp(1.0), std::exp(3.0)}, {std::exp(2.0), std::exp(5.0)});
  EXPECT_NEAR(std::log1p(r.estimate), 2.0, 1e-12);
  EXPECT_NEAR(std::log1p(r.ci[0]), -1.0, 1e-12);
  EXPECT_NEAR(std::log1p(r.ci[1]), 5.0, 1e-12);
  // Odd N: baseline {2}, candidate {1, 3, 8}: ratios {0.5, 1.5, 4}, median ratio 1.5.
  EXPECT_NEAR(hodges_lehmann_log_ratio({2}, {1, 3, 8}).estimate, 0.5, 1e-12);
}

TEST(HodgesLehmann, ConfidenceRanks) {
  // log baseline i, log candidate 10 j + 0.5 (i, j = 0..9): the 100 differences are
  // d_(k) = k - 9.5. Median (d_50 + d_51) / 2 = 41. sqrt(100 * 21 / 12) = 13.229:
  // 95 %: K = round(50 - 1.960 * 13.229) = 24 -> [d_24, d_77] = [14.5, 67.5];
  // 90 %: K = round(50 - 1.645 * 13.229) = 28 -> [d_28, d_73] = [18.5, 63.5].
  std::vector<double> b, c;
  for (int i = 0; i < 10; ++i) b.push_back(std::exp(double(i))), c.push_back(std::exp(10.0 * i + 0.5));
  const RelativeChange r95 = hodges_lehmann_log_ratio(b, c);
  EXPECT_NEAR(std::log1p(r95.estimate), 41.0, 1e-9);
  EXPECT_NEAR(std::log1p(r95.ci[0]), 14.5, 1e-9);
  EXPECT_NEAR(std::log1p(r95.ci[1]), 67.5, 1e-9);
  const RelativeChange r90 = hodges_lehmann_log_ratio(b, c, 0.90);
  EXPECT_NEAR(std::log1p(r90.ci[0]), 18.5, 1e-9);
  EXPECT_NEAR(std::log1p(r90.ci[1]), 63.5, 1e-9);
}

TEST(HodgesLehmann, EstimateIsBruteForceMedianAndInsideCi) {
  std::mt19937_64 rng(7);
  for (size_t n : {3, 8, 15}) {
    const std::vector<double> b = lognormal(rng, n, 0, 0.3), c = lognormal(rng, n + 2, 0.1, 0.3);
    std::vector<double> d;
    for (double bi : b)
      for (double cj : c) d.push_back(std::log(cj) - std::log(bi));
    std::sort(d.begin(), d.end());
    const size_t N = d.size();
    const double median = N % 2 ? d[N / 2] : 0.5 * (d[N / 2 - 1] + d[N / 2]);
    const RelativeChange r = hodges_lehmann_log_ratio(b, c);
    EXPECT_NEAR(r.estimate, std::expm1(median), 1e-12);
    EXPECT_LE(r.ci[0], r.estimate);
    EXPECT_GE(r.ci[1], r.estimate);
    EXPECT_LT(r.ci[0], r.ci[1]);
  }
}

TEST(HodgesLehmann, CoverageBySimulation) {
  // 400 trials, lognormal n = 30 each, true ratio 1.10: the 95 % CI covers 0.10 in 92-98 %.
  std::mt19937_64 rng(2024);
  const double truth = 0.10;
  int covered = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    const std::vector<double> b = lognormal(rng, 30, 0, 0.25);
    const std::vector<double> c = lognormal(rng, 30, std::log(1.10), 0.25);
    const RelativeChange r = hodges_lehmann_log_ratio(b, c);
    covered += r.ci[0] <= truth && truth <= r.ci[1];
  }
  const double coverage = double(covered) / trials;
  EXPECT_GE(coverage, 0.92);
  EXPECT_LE(coverage, 0.98);
}

TEST(HodgesLehmann, LargeSamplesWithoutMaterialisingPairs) {
  // 10^4 x 10^4 = 10^8 pairs; true ratio 1.2. The estimate's standard error is about 0.0035,
  // so the 95 % CI is about 0.0136 wide; the truth is checked against the 99.9 % CI.
  std::mt19937_64 rng(99);
  const std::vector<double> b = lognormal(rng, 10000, 0, 0.2);
  const std::vector<double> c = lognormal(rng, 10000, std::log(1.2), 0.2);
  const RelativeChange r = hodges_lehmann_log_ratio(b, c);
  EXPECT_NEAR(r.estimate, 0.2, 0.012);
  EXPECT_LT(r.ci[0], r.estimate);
  EXPECT_GT(r.ci[1], r.estimate);
  EXPECT_NEAR(r.ci[1] - r.ci[0], 0.0136, 0.002);
  const RelativeChange wide = hodges_lehmann_log_ratio(b, c, 0.999);
  EXPECT_LE(wide.ci[0], 0.2);
  EXPECT_GE(wide.ci[1], 0.2);
}

TEST(HodgesLehmann, RejectsBadInput) {
  EXPECT_THROW(hodges_lehmann_log_ratio({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(hodges_lehmann_log_ratio({1.0, 0.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW(hodges_lehmann_log_ratio({1.0}, {1.0}, 1.0), std::invalid_argument);
}

// ---- Benjamini–Hochberg.

TEST(BenjaminiHochberg, HandExample) {
  // Sorted p 0.005, 0.01, 0.03, 0.04 (m = 4): p m / rank = 0.02, 0.02, 0.04, 0.04, already monotone.
  const std::vector<double> q = benjamini_hochberg({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(q.size(), 4u);
  EXPECT_DOUBLE_EQ(q[0], 0.02);
  EXPECT_DOUBLE_EQ(q[1], 0.04);
  EXPECT_DOUBLE_EQ(q[2], 0.04);
  EXPECT_DOUBLE_EQ(q[3], 0.02);
}

TEST(BenjaminiHochberg, MonotoneAndCapped) {
  // p m / rank = 0.16, 0.082, 0.056, 0.043: the running minimum from the top makes all 0.043.
  for (double q : benjamini_hochberg({0.043, 0.04, 0.042, 0.041})) EXPECT_DOUBLE_EQ(q, 0.043);
  // 0.6 * 3 / 1 = 1.8 -> capped; 0.7 * 3 / 2 = 1.05 -> capped; 0.9 * 3 / 3 = 0.9.
  const std::vector<double> q = benjamini_hochberg({0.9, 0.6, 0.7});
  EXPECT_DOUBLE_EQ(q[0], 0.9);
  EXPECT_DOUBLE_EQ(q[1], 0.9);
  EXPECT_DOUBLE_EQ(q[2], 0.9);
  EXPECT_EQ(benjamini_hochberg({1.0, 1.0}), (std::vector<double>{1.0, 1.0}));
  EXPECT_TRUE(benjamini_hochberg({}).empty());
  EXPECT_THROW(benjamini_hochberg({1.5}), std::invalid_argument);
}

// ---- Bootstrap.

TEST(Bootstrap, SameSeedSameCi) {
  std::mt19937_64 rng(5);
  const std::vector<double> a = lognormal(rng, 50, 0, 0.3), b = lognormal(rng, 60, 0.1, 0.3);
  const auto ci1 = bootstrap_ratio_ci(a, b, &sample_median, 2000, 42);
  const auto ci2 = bootstrap_ratio_ci(a, b, &sample_median, 2000, 42);
  const auto ci3 = bootstrap_ratio_ci(a, b, &sample_median, 2000, 43);
  EXPECT_EQ(ci1, ci2);
  EXPECT_NE(ci1, ci3);
  EXPECT_LT(ci1[0], ci1[1]);
}

TEST(Bootstrap, FollowsDocumentedScheme) {
  // Independent re-implementation of the documented contract: one mt19937_64(seed); per
  // replicate n_a draws for a, then n_b for b, index = draw % n; linear-interpolated quantiles.
  const std::vector<double> a{1.0, 2.0, 4.0, 8.0}, b{3.0, 5.0, 7.0};
  const int resamples = 101;  // quantile positions 0.025 * 100 = 2.5 and 97.5: interpolated
  std::mt19937_64 rng(77);
  std::vector<double> ratios;
  for (int r = 0; r < resamples; ++r) {
    std::vector<double> ra, rb;
    for (size_t i = 0; i < a.size(); ++i) ra.push_back(a[rng() % a.size()]);
    for (size_t i = 0; i < b.size(); ++i) rb.push_back(b[rng() % b.size()]);
    ratios.push_back(sample_median(rb) / sample_median(ra));
  }
  std::sort(ratios.begin(), ratios.end());
  const double lo = ratios[2] + 0.5 * (ratios[3] - ratios[2]);
  const double hi = ratios[97] + 0.5 * (ratios[98] - ratios[97]);
  const auto ci = bootstrap_ratio_ci(a, b, &sample_median, resamples, 77);
  EXPECT_DOUBLE_EQ(ci[0], lo);
  EXPECT_DOUBLE_EQ(ci[1], hi);
}

TEST(Bootstrap, ConstantSamplesGiveExactRatio) {
  const auto ci = bootstrap_ratio_ci({2, 2, 2}, {3, 3}, &sample_median, 100, 1);
  EXPECT_EQ(ci[0], 1.5);
  EXPECT_EQ(ci[1], 1.5);
}

TEST(Bootstrap, ContainsTrueRatioInClearCase) {
  // b is a scaled by 1.5 (200 lognormal samples, 5 % spread): the ratio is 1.5 by construction.
  std::mt19937_64 rng(11);
  const std::vector<double> a = lognormal(rng, 200, std::log(100.0), 0.05);
  std::vector<double> b;
  for (double x : a) b.push_back(1.5 * x);
  const auto ci = bootstrap_ratio_ci(a, b, &sample_median, 2000, 7);
  EXPECT_LE(ci[0], 1.5);
  EXPECT_GE(ci[1], 1.5);
  EXPECT_GT(ci[0], 1.4);
  EXPECT_LT(ci[1], 1.6);
  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / v.size();
  };
  const auto ci_mean = bootstrap_ratio_ci(a, b, mean, 2000, 7);
  EXPECT_LE(ci_mean[0], 1.5);
  EXPECT_GE(ci_mean[1], 1.5);
}

}  // namespace
}  // namespace pperf
