// Pooling a configuration's hosts (src/stats/between_hosts.h): the figures below are worked by
// hand from DerSimonian-Laird's and Hartung-Knapp's formulas (each test says how).
#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>

#include <cmath>

#include "bench/stats_sim/between_hosts_sim.h"
#include "src/stats/between_hosts.h"

using namespace pperf;

// Two hosts, log means 0 and 0.1, each se 0.01: w = 1e4, fixed mean 0.05, Q = 2 * 1e4 * 0.05^2 =
// 50, c = 2e4 - 2e8 / 2e4 = 1e4, tau^2 = (50 - 1) / 1e4 = 0.0049; w* = 1 / 0.005 = 200, pooled
// 0.05, DL variance 1 / 400; Hartung-Knapp 2 * 200 * 0.05^2 / (1 * 400) = 1 / 400 too.
TEST(BetweenHosts, DerSimonianLairdOnTwoHostsByHand) {
  const PooledHosts p = pool_hosts({{0, 0.01, 29}, {0.1, 0.01, 29}});
  EXPECT_EQ(p.source, BetweenHostSource::replicates);
  EXPECT_NEAR(p.tau2, 0.0049, 1e-15);
  EXPECT_NEAR(p.log_mean, 0.05, 1e-15);
  EXPECT_NEAR(p.variance, 0.0025, 1e-15);
  // Satterthwaite: (0.0025)^2 / ((0.00005)^2 / 58 + (0.00245)^2 / 1) = 1.0412...
  EXPECT_NEAR(p.dof, 0.0025 * 0.0025 / (0.00005 * 0.00005 / 58 + 0.00245 * 0.00245), 1e-9);
  EXPECT_NEAR(p.mean_host_variance, 0.0001, 1e-18);
}

// Hosts that agree better than their own errors say: tau^2 = 0, and the variance is the larger
// of 1 / sum w (fixed effect) and Hartung-Knapp's scatter (here smaller: the "never narrower" rule).
TEST(BetweenHosts, NoSpreadBeyondTheHostsOwnErrors) {
  const PooledHosts p = pool_hosts({{0, 0.01, 29}, {0.001, 0.01, 29}, {-0.001, 0.01, 29}});
  EXPECT_EQ(p.tau2, 0);
  EXPECT_NEAR(p.log_mean, 0, 1e-15);
  EXPECT_NEAR(p.variance, 0.0001 / 3, 1e-15);
  EXPECT_NEAR(p.dof, 87, 1e-9) << "only the hosts' own errors: their batch means' dof, summed";
}

// Hosts that scatter more than their errors and DL's tau^2 (Q below k - 1 is impossible here,
// but the HK scatter can exceed 1 / sum w*): three hosts 0, 0, 0.03 with se 0.01: fixed mean
// 0.01, Q = 1e4 (1e-4 + 1e-4 + 4e-4) = 6, c = 3e4 - 3e8 / 3e4 = 2e4, tau^2 = (6 - 2) / 2e4 = 2e-4;
// w* = 1 / 3e-4 each, pooled 0.01, DL 1e-4, HK (1e-4 + 1e-4 + 4e-4) / 3e-4 / (2 * 1e4) = 1e-4.
TEST(BetweenHosts, ThreeHostsByHand) {
  const PooledHosts p = pool_hosts({{0, 0.01, 29}, {0, 0.01, 29}, {0.03, 0.01, 29}});
  EXPECT_NEAR(p.tau2, 2e-4, 1e-16);
  EXPECT_NEAR(p.log_mean, 0.01, 1e-15);
  EXPECT_NEAR(p.variance, 1e-4, 1e-16);
}

TEST(BetweenHosts, OneHostNotIncludedOrFromElsewhere) {
  const PooledHosts alone = pool_hosts({{std::log(100.0), 0.01, 29}});
  EXPECT_EQ(alone.source, BetweenHostSource::not_included);
  EXPECT_EQ(alone.tau2, 0);
  EXPECT_NEAR(alone.variance, 1e-4, 1e-18);
  EXPECT_NEAR(alone.dof, 29, 1e-9);
  const PooledHosts history = pool_hosts({{std::log(100.0), 0.01, 29}}, ExternalSpread{0.02, 5});
  EXPECT_EQ(history.source, BetweenHostSource::history);
  EXPECT_NEAR(history.tau2, 4e-4, 1e-18);
  EXPECT_NEAR(history.variance, 5e-4, 1e-18);
  // (5e-4)^2 / ((1e-4)^2 / 29 + (4e-4)^2 / 4) = 6.19...
  EXPECT_NEAR(history.dof, 25e-8 / (1e-8 / 29 + 16e-8 / 4), 1e-9);
  EXPECT_EQ(to_string(history.source), "history");
}

TEST(BetweenHosts, RatioIntervalIsStudentTAtWelchSatterthwaite) {
  const PooledHosts b{0, 1e-4, 29}, c{0.1, 1e-4, 29};
  const auto ci = separate_log_ratio_interval(b, c, 0.95);
  const double t = boost::math::quantile(boost::math::students_t(58), 0.975);
  EXPECT_NEAR(ci[0], 0.1 - t * std::sqrt(2e-4), 1e-12);
  EXPECT_NEAR(ci[1], 0.1 + t * std::sqrt(2e-4), 1e-12);
}

// More hosts: the present estimate 3 % slower per step at 0.9x the price (improvement ~ +7 %), each
// host's own se 2 %, between hosts 4 %: one host a side gives +-8.9 % (z ~ 1.96 at large dof
// from... undecided); the planner says how many more, and never more than asked for.
TEST(BetweenHosts, MoreHostsDecideAWideInterval) {
  const PooledHosts b = pool_hosts({{0, 0.02, 29}}), c = pool_hosts({{std::log(1.03), 0.02, 29}});
  DecisionSettings settings;
  const auto log_ratio = separate_log_ratio_interval(b, c, 0.95);
  EXPECT_EQ(verdict_of(improvement_bounds(log_ratio, 0.8), settings.equivalence_pct), CostVerdict::cheaper);
  // At 0.97x the price the improvement is ~0 % +- 5.6 %: undecided with one host a side.
  EXPECT_EQ(verdict_of(improvement_bounds(log_ratio, 0.97), settings.equivalence_pct), CostVerdict::undecided);
  const auto more = more_hosts_to_decide(b, c, 0.04 * 0.04, PriceRatio{0.9, 0.9}, settings);
  ASSERT_TRUE(more);
  EXPECT_GT(more->baseline + more->candidate, 0);
  // Decided at the planned numbers, not one fewer in all.
  const auto decided = [&](int64_t nb, int64_t nc) {
    const auto lr = separate_log_ratio_interval(with_more_hosts(b, nb, 0.0016), with_more_hosts(c, nc, 0.0016), 0.95);
    return verdict_of(improvement_bounds(lr, 0.9), settings.equivalence_pct) != CostVerdict::undecided;
  };
  EXPECT_TRUE(decided(more->baseline, more->candidate));
  const int64_t total = more->baseline + more->candidate;
  for (int64_t nb = 0; nb < total; ++nb) EXPECT_FALSE(decided(nb, total - 1 - nb)) << nb;
  EXPECT_FALSE(more_hosts_to_decide(b, c, 0.04 * 0.04, PriceRatio{1 / 1.03, 1 / 1.03}, settings, 3))
      << "break-even and a 2 % margin: three more a side cannot say 'equivalent'";
}

// The boundaries of docs/statistics.md's "Hosts measured apart" tables, pinned at 300 trials a
// cell (bench/stats_sim hosts runs the same simulation, bench/stats_sim/between_hosts_sim.h, at 4000):
// hosts 5 % apart, one host a side with the spread ignored, decide falsely most of the time; the
// spread from five other hosts of the type, or three hosts a side, keep it near the 5 % of the
// confidence. Exact counts: the simulation is deterministic (a fixed seed).
TEST(BetweenHosts, SimulatedBoundariesSpreadIgnoredMeasuredOrReplicated) {
  using namespace pperf::coverage;
  SeparateSetup ignored{Generator{Shape::lognormal_005}, 0.05, 1};
  SeparateCell c = simulate_separate(ignored, 300, 60);
  EXPECT_EQ(c.cheaper + c.dearer, 264) << "88 % false decisions: the spread ignored";
  EXPECT_EQ(c.covered, 35);
  SeparateSetup history = ignored;
  history.history_hosts = 5;
  c = simulate_separate(history, 300, 61);
  EXPECT_EQ(c.cheaper + c.dearer, 17);  // 5.7 %
  EXPECT_EQ(c.covered, 283);
  SeparateSetup replicated = ignored;
  replicated.hosts = 3;
  c = simulate_separate(replicated, 300, 62);
  EXPECT_EQ(c.cheaper + c.dearer, 8);  // 2.7 %
  EXPECT_EQ(c.covered, 292);
  SeparateSetup same_hosts{Generator{Shape::lognormal_005}, 0, 1};
  c = simulate_separate(same_hosts, 300, 63);
  EXPECT_EQ(c.cheaper + c.dearer, 8) << "no spread between hosts: ignoring it costs nothing";
  EXPECT_EQ(c.equivalent, 259);
  SeparateSetup effect = replicated;
  effect.speed = 0.9, effect.price_ratio = 1.05;
  c = simulate_separate(effect, 300, 64);
  EXPECT_EQ(c.covered, 289);
  EXPECT_EQ(c.cheaper, 49) << "5.5 % cheaper, hosts 5 % apart, three a side: decided in 16 % of runs";
}
