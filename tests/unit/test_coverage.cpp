// Simulated coverage of every interval pperf prints (issue 13): the median's and the mean's CI
// at fixed n and under the real stop rules, with serial correlation, and improvement_pct_ci95.
// Few trials to keep CI fast: each check allows 2 percentage points plus 2 binomial standard
// errors of the simulation. bench/coverage/coverage_table.cpp prints the full table.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/stats_sim/coverage_sim.h"

using namespace pperf;
using namespace pperf::coverage;

namespace {
constexpr int kTrials = 1000;
double tolerance(double level, int trials) { return 0.02 + 2 * std::sqrt(level * (1 - level) / trials); }
}  // namespace

// The shapes the audit found intervals failing under: rare slow steps, correlated steps, both.
const std::vector<std::pair<const char*, Generator>> kAuditShapes = {
    {"lognormal s=0.05", {Shape::lognormal_005}},        {"lognormal s=0.3", {Shape::lognormal_03}},
    {"5% outliers at 3x", {Shape::outliers_5pct_3x}},    {"bimodal", {Shape::bimodal}},
    {"AR(1) r=0.5", {Shape::lognormal_005, 100, 0.5}},   {"AR(1) r=0.5 + outliers", {Shape::outliers_5pct_3x, 100, 0.5}}};

TEST(Coverage, MeanIntervalHoldsItsLevelFromTheFirstNItIsReportedAt) {
  uint64_t seed = 100;
  for (const auto& [label, g] : kAuditShapes)
    for (size_t n : {kMinCiSteps, size_t{100}, size_t{200}}) {
      const Cell c = simulate(g, n, kTrials, seed++);
      EXPECT_EQ(c.mean_intervals, kTrials) << label << " n=" << n;
      EXPECT_GE(c.mean_coverage(), 0.93) << label << " n=" << n;
    }
}

TEST(Coverage, MeanIntervalHoldsItsLevelForStronglyCorrelatedSteps) {
  // AR(1) r = 0.8: batches of 10 steps keep a lag-1 of 0.29 that 6-30 batch means estimate
  // noisily; the steps' own lag-1 implies it (92.7-93.7 % at these n before).
  uint64_t seed = 150;
  for (size_t n : {kMinCiSteps, size_t{100}, size_t{200}})
    EXPECT_GE(simulate({Shape::lognormal_005, 100, 0.8}, n, kTrials, seed++).mean_coverage(), 0.93) << "n=" << n;
}

TEST(Coverage, MeanIntervalOfAHostSwitchingBetweenTwoSpeedsHoldsItsLevelWithinItsSteps) {
  // Issue 60: two speeds 2.14x apart, each for 5-20 steps. Kept within the fastest and slowest
  // step, the interval still covers (it over-covers: 99.9-100 % at 10,000 trials, pperf_stats_sim meanci).
  uint64_t seed = 170;
  for (size_t n : {kMinCiSteps, size_t{200}}) {
    const Cell c = simulate({Shape::regime_switching}, n, kTrials, seed++);
    EXPECT_EQ(c.mean_intervals, kTrials) << "n=" << n;
    EXPECT_GE(c.mean_coverage(), 0.93) << "n=" << n;
  }
}

TEST(Coverage, MedianIntervalHoldsItsLevelOnIndependentSteps) {
  uint64_t seed = 1;
  for (Shape s : kShapes)
    for (size_t n : {kMinCiSteps, size_t{400}}) {
      const Cell c = simulate({s}, n, kTrials, seed++);
      EXPECT_GE(c.median_coverage(), median_exact_level(n, 0.95) - tolerance(0.95, kTrials)) << name(s) << " n=" << n;
    }
  // Correlated steps: widened by what the batch means show.
  const Cell c = simulate({Shape::lognormal_005, 100, 0.5}, 200, kTrials, 300);
  EXPECT_GE(c.median_coverage(), 0.93);
}

TEST(Coverage, BelowTheMinimumThereIsNoInterval) {
  const Cell c = simulate({Shape::outliers_5pct_3x}, kMinCiSteps - 1, 10, 7);
  EXPECT_EQ(c.median_intervals, 0);
  EXPECT_EQ(c.mean_intervals, 0);
}

TEST(Coverage, StoppingOnTheTargetDoesNotCostCoverage) {
  uint64_t seed = 200;
  for (const auto& [label, g] : kAuditShapes)
    for (int64_t max_steps : {100, 400}) {
      StopSettings m;
      m.min_steps = 10;
      m.max_steps = max_steps;
      m.max_seconds = 1e9;
      m.target_rel_ci = g.shape == Shape::lognormal_005 ? 0.01 : 0.05;
      const Cell c = simulate(g, 0, kTrials, seed++, &m);
      EXPECT_GE(c.mean_coverage(), 0.93) << label << " max_steps=" << max_steps;
    }
}

TEST(Coverage, ImprovementIntervalCoversWhenTheTwoSidesDiffer) {
  constexpr int kCompareTrials = 400;
  uint64_t seed = 400;
  for (Shape s : kShapes) {
    const double cov = improvement_coverage({Shape::lognormal_005}, {s, 60}, 100, kCompareTrials, seed++);
    EXPECT_GE(cov, 0.93) << name(s);
  }
}

TEST(Decisions, IdenticalConfigurationsAreRarelyCalledCheaperOrDearerUnderDrift) {
  // A/A: the same shape on both sides, equal prices; every look after every round counts.
  constexpr int kDecisionTrials = 300;
  uint64_t seed = 500;
  for (const auto& [label, g] : kAuditShapes)
    for (Drift d : kDrifts) {
      const DecisionCell c = simulate_decisions(g, 1.0, 1.0, d, kDecisionTrials, seed++);
      EXPECT_LE(c.rate(c.cheaper + c.dearer), 0.06) << label << ", " << name(d);
    }
}

TEST(Decisions, AClearDifferenceIsDecidedTheRightWay) {
  // 10 % faster at a 5 % higher price: 5.5 % cheaper per step.
  const DecisionCell c = simulate_decisions({Shape::lognormal_005}, 0.9, 1.05, Drift::linear_3pct, 200, 600);
  EXPECT_EQ(c.cheaper, c.trials);
  EXPECT_LT(c.rounds, 12);
  // The same speed at a 5 % higher price: dearer.
  const DecisionCell dearer = simulate_decisions({Shape::lognormal_005}, 1.0, 1.05, Drift::random_walk, 200, 601);
  EXPECT_EQ(dearer.dearer, dearer.trials);
  // Identical and steady: equivalent within 2 %.
  const DecisionCell same = simulate_decisions({Shape::lognormal_005}, 1.0, 1.0, Drift::none, 200, 602);
  EXPECT_GE(same.rate(same.equivalent), 0.94);
}

TEST(Decisions, ThePrintedIntervalHoldsAfterTheRunStoppedItself) {
  // Issue 40: the fixed-sample t printed after a decision-stopped run covered 85.6-88.7 %; the
  // anytime interval printed now holds at the stop (every run, independent rounds, 20 rounds).
  uint64_t seed = 4000;
  for (const auto& [label, g] : kAuditShapes) {
    if (g.rho > 0) continue;
    for (double speed : {1.0, 0.9}) {
      TurnsSetup s;
      s.base = g;
      s.speed = {1, speed};
      s.price_ratio = {1, speed < 1 ? 1.05 : 1.0};
      s.drift = Drift::linear_3pct;
      s.max_rounds = 20;
      const DecisionCell c = simulate_turns(s, 300, seed++);
      EXPECT_GE(c.coverage(c.anytime_hits, c.intervals), 0.94) << label << " speed " << speed;
      if (c.stopped >= 100) EXPECT_GE(c.coverage(c.stopped_anytime_hits, c.stopped), 0.93) << label << " speed " << speed;
    }
  }
}

TEST(Decisions, CorrelatedRoundsStayWithinTheFalseDecisionRate) {
  // AR(1) r = 0.8 steps make neighbouring rounds alike: before the widening 6.3-9.0 % A/A.
  uint64_t seed = 4100;
  for (Drift d : kDrifts) {
    const DecisionCell c = simulate_decisions({Shape::lognormal_005, 100, 0.8}, 1.0, 1.0, d, 400, seed++);
    EXPECT_LE(c.rate(c.cheaper + c.dearer), 0.06) << name(d);
  }
}

TEST(Decisions, BalancedOrdersCancelACarryOverEffect) {
  // Three identical configurations; a turn right after the same configuration's is 2 % faster.
  // A B C / C B A: B never gets that and is called dearer in about 46 % of runs; a Williams
  // design: within the false-decision rate.
  TurnsSetup s;
  s.base = {Shape::lognormal_005};
  s.speed = {1, 1, 1};
  s.price_ratio = {1, 1, 1};
  s.carry.back_to_back = 0.98;
  s.order = Order::reversing;
  const DecisionCell before = simulate_turns(s, 200, 4200);
  EXPECT_GE(before.rate(before.cheaper + before.dearer), 0.3);
  s.order = Order::balanced;
  for (size_t cand : {1, 2}) {
    s.candidate = cand;
    const DecisionCell now = simulate_turns(s, 300, 4201 + cand);
    EXPECT_LE(now.rate(now.cheaper + now.dearer), 0.05) << "candidate " << cand;
  }
  // A first turn of each round 2 % slower, four configurations.
  s.speed = s.price_ratio = {1, 1, 1, 1};
  s.carry = CarryOver{1, 1.02};
  for (size_t cand : {1, 2, 3}) {
    s.candidate = cand;
    const DecisionCell now = simulate_turns(s, 300, 4210 + cand);
    EXPECT_LE(now.rate(now.cheaper + now.dearer), 0.05) << "candidate " << cand;
  }
}

TEST(CompareThreshold, AChangeInsideTheThresholdIsRarelyCalledBeyondIt) {
  // One run a side, 200 steps, 5 % of steps 3x slower: a true +3 % (or -3 %) must not be
  // called regressed (improved) against 5 % more than 5 % of the time; +20 % mostly is (+10 %
  // only 15 % of the time here: the interval is about +-6 % wide with these slow steps).
  std::mt19937_64 rng(4300);
  const Generator g{Shape::outliers_5pct_3x};
  for (double change : {0.03, -0.03, 0.20}) {
    int called = 0;
    constexpr int kRuns = 300;
    for (int t = 0; t < kRuns; ++t) {
      std::vector<double> b = g.draw(200, rng), c = g.draw(200, rng);
      for (double& x : c) x *= 1 + change;
      const auto m = welch_mean_change(b, c);
      if (!m || m->p_value >= 0.05) continue;
      called += threshold_side({m->ci[0] * 100, m->ci[1] * 100}, 5) == (change > 0 ? ThresholdSide::above : ThresholdSide::below);
    }
    if (std::abs(change) < 0.05)
      EXPECT_LE(called, kRuns * 5 / 100) << change;
    else
      EXPECT_GE(called, kRuns / 2) << change;
  }
  EXPECT_EQ(threshold_side({5.0, 9.0}, 5), ThresholdSide::within) << "the interval must clear the threshold";
  EXPECT_EQ(threshold_side({5.01, 9.0}, 5), ThresholdSide::above);
  EXPECT_EQ(threshold_side({-9.0, -5.01}, 5), ThresholdSide::below);
}
