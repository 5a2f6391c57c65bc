// The race rule (src/stats/race.h): exact Bonferroni levels, eliminations of points clearly
// dearer, the stop when what is left is equivalent, and a replay that finds the round each left.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

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
