#include "src/stats/compare_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "src/stats/intervals.h"
#include "bench/stats_sim/coverage_sim.h"

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

// ---- The change of the mean: one run against one run.

// 60 steps make 6 batches of 10 whose means alternate lo, hi: the batch means' negative
// autocorrelation leaves the standard error unwidened, so every figure follows by hand. Inside
// a batch the steps alternate 30 % below and above its mean, so the steps' lag-1 is negative
// too and implies no correlation between the batches (intervals.h).
std::vector<double> alternating_batches(double lo, double hi) {
  std::vector<double> v;
  for (int i = 0; i < 60; ++i) v.push_back((i / 10 % 2 ? hi : lo) * (i % 2 ? 1.3 : 0.7));
  return v;
}

TEST(WelchMeanChange, ExactFiguresByHand) {
  // Baseline batches 9, 11 (mean 10, se sqrt(0.2)); candidate the same x 1.2. Relative se
  // 0.02 sqrt(5) a side, so se(log ratio) = sqrt(0.004) and Welch's dof = 10; t = ln 1.2 / se.
  // p: two-sided t(10) at 2.8827569, by numerical integration of its density (1e-9);
  // interval: exp(ln 1.2 -+ 2.228138852 se) - 1 (t(10)'s 97.5 % quantile).
  const auto c = welch_mean_change(alternating_batches(9, 11), alternating_batches(10.8, 13.2));
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->estimate, 0.2, 1e-12);
  EXPECT_NEAR(c->dof, 10, 1e-9);
  EXPECT_NEAR(c->p_value, 0.0163083026, 1e-8);
  EXPECT_NEAR(c->ci[0], 0.0422706834, 1e-9);
  EXPECT_NEAR(c->ci[1], 0.3815988716, 1e-9);
  // Swapping the sides mirrors the log ratio.
  const auto back = welch_mean_change(alternating_batches(10.8, 13.2), alternating_batches(9, 11));
  EXPECT_NEAR(back->estimate, 1 / 1.2 - 1, 1e-12);
  EXPECT_NEAR(back->p_value, c->p_value, 1e-12);
  EXPECT_NEAR(std::log1p(back->ci[1]), -std::log1p(c->ci[0]), 1e-12);
}

TEST(WelchMeanChange, UnequalErrorsWeighTheWelchDof) {
  // Candidate batches 8, 12 (twice the baseline's spread): v_c = 4 v_b, so
  // dof = (5 v)^2 / (v^2 / 5 + 16 v^2 / 5) = 125 / 17.
  const auto c = welch_mean_change(alternating_batches(9, 11), alternating_batches(8, 12));
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->estimate, 0, 1e-12);
  EXPECT_NEAR(c->dof, 125.0 / 17, 1e-9);
  EXPECT_NEAR(c->p_value, 1, 1e-12);
  EXPECT_NEAR(std::log1p(c->ci[0]), -std::log1p(c->ci[1]), 1e-12);
}

TEST(WelchMeanChange, NothingToDecideWithoutAnInterval) {
  std::mt19937_64 rng(3);
  const auto enough = lognormal(rng, kMinCiSteps, 0, 0.05), short_run = lognormal(rng, kMinCiSteps - 1, 0, 0.05);
  EXPECT_TRUE(welch_mean_change(enough, enough));
  EXPECT_FALSE(welch_mean_change(enough, short_run));
  EXPECT_FALSE(welch_mean_change(short_run, enough));
  EXPECT_FALSE(welch_mean_change(enough, std::vector<double>(100, 5.0)));  // no spread
  EXPECT_THROW(welch_mean_change(enough, enough, 1.0), std::invalid_argument);
}

// ---- The change of the mean: one run against earlier runs.

TEST(RunToRunChange, ExactFiguresByHand) {
  // Log run means ln 10 + {-a, 0, a}: m = ln 10, s = a, prediction se = a sqrt(4/3). A candidate
  // exactly t(2)'s 97.5 % quantile ((2u - 1) / sqrt(2u (1 - u)) at u = 0.975) prediction errors above sits on the boundary:
  // p = 0.05 and the interval's lower end is 0.
  const double a = 0.03, se = a * std::sqrt(4.0 / 3), t975 = 4.302652729749462;
  const double candidate = 10 * std::exp(t975 * se);
  const auto c = run_to_run_change({10 * std::exp(-a), 10.0, 10 * std::exp(a)}, candidate);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->estimate, std::expm1(t975 * se), 1e-12);
  EXPECT_NEAR(c->p_value, 0.05, 1e-9);
  EXPECT_NEAR(c->dof, 2, 0);
  EXPECT_NEAR(c->ci[0], 0, 1e-9);
  EXPECT_NEAR(c->ci[1], std::expm1(2 * t975 * se), 1e-9);
  // The run order does not matter; a candidate at the runs' geometric mean is no change.
  const auto centre = run_to_run_change({10 * std::exp(a), 10 * std::exp(-a), 10.0}, 10.0);
  EXPECT_NEAR(centre->estimate, 0, 1e-12);
  EXPECT_NEAR(centre->p_value, 1, 1e-12);
}

TEST(RunToRunChange, NeedsThreeRunsAndValidMeans) {
  EXPECT_FALSE(run_to_run_change({10, 11}, 10.5));
  EXPECT_TRUE(run_to_run_change({10, 11, 10.5}, 10.5));
  // Identical runs: no spread to scale by; only an identical candidate is "no change".
  EXPECT_EQ(run_to_run_change({10, 10, 10}, 10)->p_value, 1);
  EXPECT_EQ(run_to_run_change({10, 10, 10}, 10.01)->p_value, 0);
  EXPECT_THROW(run_to_run_change({10, 0, 10}, 10), std::invalid_argument);
  EXPECT_THROW(run_to_run_change({10, 10, 10}, std::nan("")), std::invalid_argument);
}

// ---- Error rates by simulation: what compare's verdicts rest on (docs/compare.md has the
// full table, bench/coverage/coverage_table.cpp).

using coverage::compare_rejection_rate;
using coverage::Generator;
using coverage::Shape;

TEST(CompareErrorRates, OneRunASideHoldsItsLevelUnderOutliersAndCorrelation) {
  // 400 A/A pairs per cell; at a true 5 % the rate's sd is 1.1 %, so 8 % is > 2.5 sd out.
  const std::vector<Generator> shapes = {{Shape::lognormal_005}, {Shape::outliers_5pct_3x}, {Shape::lognormal_005, 100, 0.5},
                                         {Shape::bimodal}};
  uint64_t seed = 1;
  for (const Generator& g : shapes)
    for (size_t n : {kMinCiSteps, size_t{200}})
      EXPECT_LE(compare_rejection_rate(g, n, 1, 1.0, 0, 400, seed++), 0.08) << coverage::name(g.shape) << " rho " << g.rho
                                                                            << ", n " << n;
}

TEST(CompareErrorRates, OneRunASideFindsATenPercentSlowdown) {
  EXPECT_GE(compare_rejection_rate({Shape::lognormal_005}, 200, 1, 1.10, 0, 200, 7), 0.95);
  EXPECT_GE(compare_rejection_rate({Shape::lognormal_005, 100, 0.5}, 200, 1, 1.10, 0, 200, 8), 0.95);
}

TEST(CompareErrorRates, RunsVaryMoreThanOneRunShowsSoHistoryIsTheNightlyBaseline) {
  // Whole runs 3 % apart (sd of a run's log level): one run a side mistakes that for a change
  // most of the time; the candidate against 3 or 5 earlier runs as clusters holds 5 %.
  const Generator g{Shape::lognormal_005};
  EXPECT_GE(compare_rejection_rate(g, 200, 1, 1.0, 0.03, 300, 11), 0.5);
  for (size_t k : {size_t{3}, size_t{5}}) {
    const double rate = compare_rejection_rate(g, 200, k, 1.0, 0.03, 1000, 12 + k);
    EXPECT_LE(rate, 0.07) << k << " runs";
    EXPECT_GE(rate, 0.03) << k << " runs";  // a test that never fires is no test either
  }
  EXPECT_GE(compare_rejection_rate(g, 200, 5, 1.15, 0.03, 300, 20), 0.8);  // a 15 % slowdown against 5 runs
}

}  // namespace
}  // namespace pperf
