// The race rule (src/stats/race.h): exact Bonferroni levels, eliminations of points clearly
// dearer, the stops (what is left equivalent, or the best within the margin of each point
// left), and a replay that finds the round each left. The rule's error rates by simulation are
// bench/stats_sim/race_sim.cpp's; here a small run checks the margin stop ends clear races.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench/stats_sim/coverage_sim.h"
#include "src/stats/race.h"

using namespace pperf;

namespace {
/// `rounds` round means around `ms` with a small deterministic wobble (spread, no trend).
std::vector<double> rounds_of(double ms, size_t rounds, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<double> out;
  for (size_t i = 0; i < rounds; ++i) out.push_back(ms * std::exp(noise(gen)));
  return out;
}
}  // namespace

TEST(Race, BonferroniLevelOverTheComparisonsWithTheBest) {
  EXPECT_DOUBLE_EQ(race_comparison_confidence(0.95, 2), 0.95);
  EXPECT_DOUBLE_EQ(race_comparison_confidence(0.95, 5), 1 - 0.05 / 4);
  EXPECT_DOUBLE_EQ(race_comparison_confidence(0.95, 17), 1 - 0.05 / 16);
  EXPECT_DOUBLE_EQ(race_comparison_confidence(0.95, 1), 0.95);
}

TEST(Race, EliminatesTheClearlyDearerKeepsTheClose) {
  DecisionSettings s;
  s.min_rounds = 8;
  s.equivalence_pct = 2;
  std::vector<RacePoint> points(4);
  points[0].round_ms = rounds_of(100, 12, 1);
  points[1].round_ms = rounds_of(150, 12, 2);  // 50 % dearer: out
  points[2].round_ms = rounds_of(101, 12, 3);  // within the noise and the margin's reach
  points[3].round_ms = rounds_of(100, 12, 4);
  points[3].cost_factor = {2, 2};              // the same time at twice the price: out
  const RaceLook look = race_look(points, s);
  EXPECT_TRUE(look.best == 0 || look.best == 2);
  EXPECT_EQ(look.verdict[1], RaceVerdict::eliminated);
  EXPECT_EQ(look.verdict[3], RaceVerdict::eliminated);
  EXPECT_NE(look.verdict[look.best == 0 ? 2 : 0], RaceVerdict::eliminated);
  ASSERT_TRUE(look.cost_ratio[3]);
  EXPECT_GT((*look.cost_ratio[3])[0], 1.9);
  EXPECT_LT((*look.cost_ratio[3])[1], 2.1);
  EXPECT_NEAR(look.cost_ratio_estimate[1], 1.5, 0.03);
}

TEST(Race, NoVerdictBeforeMinRoundsAndPointsOutStayOut) {
  DecisionSettings s;
  s.min_rounds = 8;
  std::vector<RacePoint> points(3);
  points[0].round_ms = rounds_of(100, 4, 1);
  points[1].round_ms = rounds_of(200, 4, 2);
  points[2].round_ms = rounds_of(50, 2, 3);
  points[2].racing = false;  // cheaper, but out: not the best
  const RaceLook look = race_look(points, s);
  EXPECT_EQ(look.best, 0u);
  EXPECT_EQ(look.verdict[1], RaceVerdict::undecided);  // 4 < min_rounds (8)
  EXPECT_EQ(look.verdict[2], RaceVerdict::out);
  EXPECT_FALSE(look.finished);
}

TEST(Race, FinishesWithOneLeftOrAllEquivalent) {
  DecisionSettings s;
  s.min_rounds = 8;
  s.equivalence_pct = 5;
  std::vector<RacePoint> points(2);
  points[0].round_ms = rounds_of(100, 20, 1);
  points[1].round_ms = rounds_of(200, 20, 2);
  RaceLook look = race_look(points, s);
  EXPECT_TRUE(look.finished);
  EXPECT_EQ(look.why, "one point left");
  points[1].round_ms = rounds_of(100.5, 20, 2);
  look = race_look(points, s);
  EXPECT_EQ(look.verdict[1 - look.best], RaceVerdict::equivalent);
  EXPECT_TRUE(look.finished);
  EXPECT_EQ(look.why.rfind("every point left is the same cost per sample as the best", 0), 0u);
}

TEST(Race, ReplayFindsTheRoundEachLeft) {
  DecisionSettings s;
  s.min_rounds = 8;
  s.equivalence_pct = 1;
  std::vector<RacePoint> points(3);
  points[0].round_ms = rounds_of(100, 20, 1);
  points[1].round_ms = rounds_of(200, 20, 2);
  points[2].round_ms = rounds_of(103, 20, 3);
  // Live: point 1 left after its look at round min_rounds (8): its series ends there.
  const RaceReplay full = replay_race(points, 20, s);
  ASSERT_TRUE(full.left_after_round[1]);
  EXPECT_EQ(*full.left_after_round[1], 8u);
  EXPECT_FALSE(full.left_after_round[0]);
  points[1].round_ms.resize(8);
  const RaceReplay live = replay_race(points, 20, s);
  EXPECT_EQ(live.left_after_round, full.left_after_round);
  EXPECT_EQ(live.final_look.verdict[1], RaceVerdict::out);
  EXPECT_EQ(live.final_look.best, 0u);
  // A point whose series ends without a look eliminating it failed: out, not eliminated.
  points[2].round_ms.resize(3);
  const RaceReplay failed = replay_race(points, 20, s);
  EXPECT_FALSE(failed.left_after_round[2]);
  EXPECT_EQ(failed.final_look.verdict[2], RaceVerdict::out);
}

TEST(Race, ComparisonsReadTheRoundsCorrelationFromTheSteps) {
  // Two close points whose steps are strongly correlated (a deterministic AR(1), lag-1 0.8) but whose
  // 12 round means look independent: with the steps the comparison's interval is wider than from
  // the round means alone (decide_interleaved's step-implied correlation), and the replay hands
  // each round's steps along (the same interval at its last round as the look's).
  DecisionSettings s;
  s.min_rounds = 8;
  std::vector<RacePoint> points(2);
  for (size_t i = 0; i < 2; ++i) {
    double state = 0;
    points[i].steps.round_steps = 10;
    for (int k = 0; k < 120; ++k) {
      state = 0.8 * state + 0.6 * (((k * 37 + 3 + 8 * static_cast<int>(i)) % 17 - 8) / 4.9);
      points[i].steps.step_ms.push_back((i ? 99.5 : 100) * (1 + 0.03 * state));
    }
    points[i].round_ms = points[i].steps.round_means();
  }
  const RaceLook with_steps = race_look(points, s);
  std::vector<RacePoint> means_only = points;
  for (RacePoint& p : means_only) p.steps = RoundSteps{};
  const RaceLook from_means = race_look(means_only, s);
  ASSERT_TRUE(with_steps.cost_ratio[0] && from_means.cost_ratio[0]);
  const auto width = [](const std::array<double, 2>& r) { return r[1] - r[0]; };
  EXPECT_GT(width(*with_steps.cost_ratio[0]), 1.05 * width(*from_means.cost_ratio[0]));
  const RaceReplay replay = replay_race(points, 12, s);
  ASSERT_TRUE(replay.final_look.cost_ratio[0]);
  EXPECT_DOUBLE_EQ((*replay.final_look.cost_ratio[0])[0], (*with_steps.cost_ratio[0])[0]);
}

TEST(Race, WithinMarginIsTheBestAtMostThatMuchDearer) {
  // cost ratio = the point over the best; the best is within 2 % of it when lower * 1.02 >= 1.
  EXPECT_TRUE(race_within_margin({1 / 1.02, 1.5}, 2));
  EXPECT_FALSE(race_within_margin({1 / 1.02 - 1e-9, 1.5}, 2));
  EXPECT_FALSE(race_within_margin({0.98, 1.0}, 2));  // 0.98 x 1.02 = 0.9996: the best may be 2.04 % dearer
  EXPECT_TRUE(race_within_margin({0.981, 1.0}, 2));
  EXPECT_TRUE(race_within_margin({1, 1.2}, 0));
  EXPECT_FALSE(race_within_margin({0.999, 1.2}, 0));
}

TEST(Race, StopsWhenTheBestIsWithinTheMarginOfEveryPointLeft) {
  DecisionSettings s;
  s.min_rounds = 8;
  std::vector<RacePoint> points(3);
  points[0].round_ms = rounds_of(100, 12, 1);
  points[1].round_ms = rounds_of(101.5, 12, 2);  // a little dearer: not decided either way
  points[2].round_ms = rounds_of(160, 12, 3);    // clearly dearer: eliminated this look
  s.equivalence_pct = 0.1;
  RaceLook look = race_look(points, s);
  ASSERT_EQ(look.best, 0u);
  EXPECT_EQ(look.verdict[2], RaceVerdict::eliminated);
  ASSERT_TRUE(look.cost_ratio[1]);
  // The interval is decide_interleaved's at the Bonferroni level over the 3 points that started.
  DecisionSettings each = s;
  each.confidence = race_comparison_confidence(s.confidence, 3);
  each.early_look_rounds = 0;  // the race takes no early looks: the sequence alone spends its alpha
  const auto time_ratio = anytime_time_ratio_interval(points[0].round_ms, points[1].round_ms, each);
  ASSERT_TRUE(time_ratio);
  const double lo = (*look.cost_ratio[1])[0], hi = (*look.cost_ratio[1])[1];
  EXPECT_NEAR(lo, (*time_ratio)[0], 1e-12);
  EXPECT_NEAR(hi, (*time_ratio)[1], 1e-12);
  ASSERT_LT(lo, 1);
  ASSERT_GT(hi, 1.05);  // wide enough that no margin below 5 % makes it equivalent
  // The margin at which the best is exactly within reach of point 1: (1 / lo - 1) x 100 %.
  const double edge_pct = (1 / lo - 1) * 100;
  s.equivalence_pct = edge_pct * (1 - 1e-9);
  look = race_look(points, s);
  EXPECT_EQ(look.verdict[1], RaceVerdict::undecided);
  EXPECT_FALSE(look.finished);
  s.equivalence_pct = edge_pct * (1 + 1e-9);
  look = race_look(points, s);
  EXPECT_EQ(look.verdict[1], RaceVerdict::undecided);  // still not equivalent: its interval reaches past +margin
  EXPECT_TRUE(look.finished);
  EXPECT_EQ(look.why, fmt::format("the best costs at most {:g} % more per sample than any point left", s.equivalence_pct));
  // Not before min_rounds, however wide the margin.
  std::vector<RacePoint> early = points;
  for (auto& p : early) p.round_ms.resize(6);
  s.equivalence_pct = 50;
  look = race_look(early, s);
  EXPECT_EQ(look.verdict[1], RaceVerdict::undecided);
  EXPECT_FALSE(look.finished);
}

TEST(Race, TheMarginStopEndsClearRacesWithABestWithinTheMargin) {
  // Four points (true costs 1, 1.01 (inside the 2 % margin), 1.03, 1.6), lognormal s = 0.05 steps,
  // rounds of 10, a budget of 60: the rule with only the equivalence stop decided 86 % of such
  // races (docs/statistics.md); the margin stop decides them all, none naming a best outside it.
  DecisionSettings s;  // 95 %, margin 2 %, min_rounds 8
  s.horizon_rounds = 60;
  const std::vector<double> cost{1, 1.01, 1.03, 1.6};
  std::mt19937_64 rng(7);
  int finished = 0, wrong = 0;
  size_t rounds_sum = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<RacePoint> points(cost.size());
    RaceLook look;
    size_t r = 0;
    while (r < 60 && !look.finished) {
      ++r;
      for (size_t i = 0; i < cost.size(); ++i) {
        if (!points[i].racing) continue;
        coverage::Generator g{coverage::Shape::lognormal_005};
        g.scale *= cost[i];
        const std::vector<double> steps = g.draw(10, rng);
        double sum = 0;
        for (double x : steps) sum += x;
        points[i].round_ms.push_back(sum / 10);
      }
      look = race_look(points, s);
      for (size_t i = 0; i < cost.size(); ++i)
        if (look.verdict[i] == RaceVerdict::eliminated) points[i].racing = false;
    }
    finished += look.finished;
    wrong += cost[look.best] > 1.02;
    rounds_sum += r;
  }
  EXPECT_EQ(finished, 60);
  EXPECT_EQ(wrong, 0);
  EXPECT_LT(static_cast<double>(rounds_sum) / 60, 30.0);  // the equivalence stop alone needs ~40 rounds
}
