// Every comparison against a configured threshold, at exact equality and one step either side
// (issue 45: the mutation check found the equality cases unpinned: the decision's first look at
// exactly min_rounds, a price table exactly max_age_days old). One step is one count, one day,
// one byte, or the next double (std::nextafter) where the threshold is a real number.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pricing/price_table.h"
#include "src/measure/memory_probe.h"
#include "src/stats/compare_stats.h"
#include "src/stats/decision.h"
#include "src/stats/intervals.h"
#include "src/stats/stopping.h"

using namespace pperf;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
double below(double x) { return std::nextafter(x, -kInf); }
double above(double x) { return std::nextafter(x, kInf); }

/// Paired round means where the candidate is clearly cheaper (half the time, a little spread).
struct Rounds {
  std::vector<double> baseline, candidate;
};
Rounds rounds(size_t t) {
  Rounds r;
  for (size_t j = 0; j < t; ++j) {
    r.baseline.push_back(100 + static_cast<double>(j % 3));
    r.candidate.push_back(50 + static_cast<double>((j + 1) % 4) * 0.5);
  }
  return r;
}
}  // namespace

// decision.h: the verdict is read from min_rounds paired rounds on; before, the interval is
// shown but no verdict. Exactly min_rounds rounds: the first look.
TEST(ThresholdEdges, TheDecisionsFirstLookIsAtExactlyMinRounds) {
  DecisionSettings s;
  s.min_rounds = 8;
  s.early_look_rounds = 0;  // these rounds would decide at an early look (the next test)
  for (size_t t : {s.min_rounds - 1, s.min_rounds, s.min_rounds + 1}) {
    const Rounds r = rounds(t);
    const Decision d = decide_interleaved(r.baseline, r.candidate, 1.0, s);
    EXPECT_EQ(d.looks, static_cast<int64_t>(t));
    ASSERT_TRUE(d.improvement_pct_bounds) << t << " rounds: the interval is shown before the first look too";
    if (t < s.min_rounds) {
      EXPECT_EQ(d.verdict, CostVerdict::undecided) << t;
      EXPECT_EQ(d.reason, "7 paired rounds: the first look is at 8");
    } else {
      EXPECT_EQ(d.verdict, CostVerdict::cheaper) << t << " rounds: " << d.reason;
    }
  }
  // A min_rounds of 2 (the fewest with an interval) looks at 2.
  s.min_rounds = 2;
  const Rounds two = rounds(2);
  const Decision at_two = decide_interleaved(two.baseline, two.candidate, 1.0, s);
  EXPECT_EQ(at_two.reason.find("first look"), std::string::npos) << at_two.reason;
}

// decision.h: early looks from exactly early_look_rounds to min_rounds - 1, each a Student t
// interval at 1 - 5 % x 10 % / looks; the sequence gets the other 4.5 %. From 5: three looks at
// 99.8333 %.
TEST(ThresholdEdges, EarlyLooksFromExactlyEarlyLookRounds) {
  DecisionSettings s;
  s.early_look_rounds = 5;
  EXPECT_NEAR(early_look_confidence(s), 1 - 0.005 / 3, 1e-15);
  EXPECT_NEAR(sequence_alpha(s), 0.045, 1e-15);
  const Rounds four = rounds(4), five = rounds(5);
  EXPECT_EQ(decide_interleaved(four.baseline, four.candidate, 1.0, s).reason, "4 paired rounds: the first look is at 8");
  const Decision at_five = decide_interleaved(five.baseline, five.candidate, 1.0, s);
  EXPECT_EQ(at_five.verdict, CostVerdict::cheaper) << at_five.reason;
  // Widened for the rounds' correlation as the sequence is (x 4.3589 for these periodic rounds):
  // tests/unit/decision_reference.py.
  EXPECT_NEAR((*at_five.improvement_pct_bounds)[0], 45.56544728814126, 1e-8);
  EXPECT_NEAR((*at_five.improvement_pct_bounds)[1], 53.524914675963274, 1e-8);
  EXPECT_NE(at_five.reason.find("an early look at 5 paired rounds (Student t at 99.83 %)"), std::string::npos)
      << at_five.reason;
  s.early_look_rounds = 6;
  EXPECT_EQ(decide_interleaved(five.baseline, five.candidate, 1.0, s).verdict, CostVerdict::undecided);
  EXPECT_NEAR(early_look_confidence(s), 1 - 0.005 / 2, 1e-15);
  // No early look once it would be at or past the first look of the sequence: the whole error there.
  s.early_look_rounds = 8;
  EXPECT_EQ(early_look_confidence(s), 0);
  EXPECT_EQ(sequence_alpha(s), 1 - s.confidence);
}

// decision.h: no early look before each side has kMinCiSteps (60) steps, so a result decided
// early keeps its own interval: round 6 at the default 10-step rounds, and with shorter rounds
// none before the sequence's first look (round 8). settings_for_turns also sets the horizon.
TEST(ThresholdEdges, EarlyLooksWaitForEachSidesMinimumSteps) {
  const DecisionSettings defaults;
  EXPECT_EQ(defaults.early_look_rounds, 6u);
  EXPECT_EQ(defaults.early_look_rounds * 10, kMinCiSteps);
  const DecisionSettings ten = settings_for_turns(defaults, 200, 10);
  EXPECT_EQ(ten.early_look_rounds, 6u);
  EXPECT_EQ(ten.horizon_rounds, 20u);
  EXPECT_NEAR(early_look_confidence(ten), 1 - 0.005 / 2, 1e-15);
  const DecisionSettings seven = settings_for_turns(defaults, 200, 7);
  EXPECT_EQ(seven.early_look_rounds, 9u);  // 63 steps: past min_rounds, so no early look
  EXPECT_EQ(early_look_confidence(seven), 0);
  EXPECT_EQ(sequence_alpha(seven), 1 - defaults.confidence);
  EXPECT_EQ(seven.horizon_rounds, 29u);
  // Longer rounds never move the first early look before early_look_rounds.
  EXPECT_EQ(settings_for_turns(defaults, 200, 20).early_look_rounds, 6u);
  DecisionSettings none = defaults;
  none.early_look_rounds = 0;
  EXPECT_EQ(settings_for_turns(none, 200, 10).early_look_rounds, 0u);
  const Rounds five = rounds(5);
  EXPECT_EQ(decide_interleaved(five.baseline, five.candidate, 1.0, ten).verdict, CostVerdict::undecided);
  const Rounds six = rounds(6);
  EXPECT_EQ(decide_interleaved(six.baseline, six.candidate, 1.0, ten).verdict, CostVerdict::cheaper);
}

// decision.h: equivalent when the interval lies within ±equivalence_pct, ends included; cheaper
// when it is above 0, dearer below.
TEST(ThresholdEdges, VerdictMarginsOneStepEitherSide) {
  const double eq = 2;
  EXPECT_EQ(verdict_of({-eq, eq}, eq), CostVerdict::equivalent);
  EXPECT_EQ(verdict_of({above(-eq), below(eq)}, eq), CostVerdict::equivalent);
  EXPECT_EQ(verdict_of({below(-eq), eq}, eq), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({-eq, above(eq)}, eq), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({0, 5}, eq), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({above(0.0), 5}, eq), CostVerdict::cheaper);
  EXPECT_EQ(verdict_of({below(0.0), 5}, eq), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({-5, 0}, eq), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({-5, below(0.0)}, eq), CostVerdict::dearer);
  EXPECT_EQ(verdict_of({-5, above(0.0)}, eq), CostVerdict::undecided);
}

// price_table.h: stale when older than max_age_days; exactly max_age_days old is still fresh.
TEST(ThresholdEdges, APriceTableExactlyMaxAgeDaysOldIsNotStale) {
  PriceTable t;
  t.name = "t";
  t.retrieved = "2026-09-01";
  t.published = "2026-08-25";
  ASSERT_EQ(days_between("2026-08-25", "2026-11-23"), 90);
  EXPECT_EQ(staleness_warning(t, 90, "2026-11-22"), "") << "89 days";
  EXPECT_EQ(staleness_warning(t, 90, "2026-11-23"), "") << "90 days: at the limit, not over it";
  EXPECT_EQ(staleness_warning(t, 90, "2026-11-24"),
            "price table t was published 2026-08-25 (91 days ago, more than pricing.max_age_days 90): prices may have "
            "changed; import current ones with `pperf prices import`");
  EXPECT_EQ(staleness_warning(t, 91, "2026-11-24"), "");
}

// stopping.h: max_steps and max_seconds fire when reached, not one past.
TEST(ThresholdEdges, MaxStepsAndMaxSecondsFireWhenReached) {
  auto steps = stop_at_max_steps(5);
  EXPECT_FALSE(steps->check(std::vector<double>(4, 1.0), 0));
  ASSERT_TRUE(steps->check(std::vector<double>(5, 1.0), 0));
  EXPECT_EQ(steps->check(std::vector<double>(5, 1.0), 0)->code, StopReason::max_steps);
  EXPECT_TRUE(steps->check(std::vector<double>(6, 1.0), 0));

  auto seconds = stop_at_max_seconds(2);
  EXPECT_FALSE(seconds->check({1}, below(2.0)));
  ASSERT_TRUE(seconds->check({1}, 2.0));
  EXPECT_EQ(seconds->check({1}, 2.0)->code, StopReason::max_seconds);
  EXPECT_TRUE(seconds->check({1}, above(2.0)));
}

// stopping.h: the precision rule's first look is at exactly max(min_steps, kMinCiSteps); with
// max_steps there too, that one look decides.
TEST(ThresholdEdges, ThePrecisionRulesFirstLookIsAtExactlyMinSteps) {
  std::vector<double> steady;
  for (int i = 0; i < 200; ++i) steady.push_back(100.0 + i % 3);
  const int64_t min_steps = 100;  // above kMinCiSteps, the intervals' own floor
  ASSERT_GT(static_cast<size_t>(min_steps), kMinCiSteps);
  auto fires_at = [&](StopRule& rule) -> size_t {
    for (size_t n = 1; n <= steady.size(); ++n)
      if (rule.check(std::vector<double>(steady.begin(), steady.begin() + n), 0)) return n;
    return 0;
  };
  auto decided_at_min = stop_at_target_rel_ci(min_steps, 0.05, min_steps);
  EXPECT_EQ(fires_at(*decided_at_min), 100u) << "one look at min_steps == max_steps";
  // Otherwise the look at min_steps meets the target and the next, a quarter later, confirms.
  auto confirmed = stop_at_target_rel_ci(min_steps, 0.05);
  EXPECT_EQ(fires_at(*confirmed), 125u);
  auto one_more = stop_at_target_rel_ci(min_steps + 1, 0.05);
  EXPECT_EQ(fires_at(*one_more), 126u);
  // The target itself at equality: met (the boundaries' test pins it at the worse half-width).
  // Steps spread enough that the target is loose enough for 100 steps (unseen_tail_steps).
  std::vector<double> spread;
  for (int i = 0; i < min_steps; ++i) spread.push_back(100.0 + 10 * ((i * 7) % 13));
  const RelativePrecision p = relative_precision(spread);
  const double worst = std::max({p.mean, p.median, steps_rel_halfwidth(spread)});
  ASSERT_LE(unseen_tail_steps(worst), static_cast<double>(min_steps));
  EXPECT_TRUE(stop_at_target_rel_ci(min_steps, worst, min_steps)->check(spread, 0));
  EXPECT_FALSE(stop_at_target_rel_ci(min_steps, below(worst), min_steps)->check(spread, 0));
  // Below unseen_tail_steps(target) no look stops, not even one at max_steps: 100 steady steps
  // meet a 3/101 target but may not stop on it; 3/100 they may.
  const std::vector<double> hundred(steady.begin(), steady.begin() + min_steps);
  EXPECT_FALSE(stop_at_target_rel_ci(min_steps, 3.0 / (min_steps + 1), min_steps)->check(hundred, 0));
  EXPECT_TRUE(stop_at_target_rel_ci(min_steps, 3.0 / min_steps, min_steps)->check(hundred, 0));
}

// compare_stats.h: a change regresses (or improves) when its whole interval is beyond the
// threshold; an end exactly at it does not clear it.
TEST(ThresholdEdges, CompareThresholdsOneStepEitherSide) {
  const double max_pct = 5;
  EXPECT_EQ(threshold_side({max_pct, 9}, max_pct), ThresholdSide::within);
  EXPECT_EQ(threshold_side({above(max_pct), 9}, max_pct), ThresholdSide::above);
  EXPECT_EQ(threshold_side({below(max_pct), 9}, max_pct), ThresholdSide::within);
  EXPECT_EQ(threshold_side({-9, -max_pct}, max_pct), ThresholdSide::within);
  EXPECT_EQ(threshold_side({-9, below(-max_pct)}, max_pct), ThresholdSide::below);
  EXPECT_EQ(threshold_side({-9, above(-max_pct)}, max_pct), ThresholdSide::within);
  // A zero threshold: any change whose interval excludes 0.
  EXPECT_EQ(threshold_side({0, 1}, 0), ThresholdSide::within);
  EXPECT_EQ(threshold_side({above(0.0), 1}, 0), ThresholdSide::above);
}

// memory_probe.h: an item fits when its predicted peak is at most the memory it may use, and on
// a GPU its device prediction at most the device's capacity; a limit of 0 is no limit.
TEST(ThresholdEdges, AMemoryPredictionExactlyAtTheLimitFits) {
  MemoryEstimate e;
  e.batch_size = 64;
  e.probes = {{8, 1000}, {16, 1500}};
  e.limit_bytes = 5000;
  for (const auto& [predicted, fits] : {std::pair<int64_t, bool>{4999, true}, {5000, true}, {5001, false}}) {
    e.predicted_peak_bytes = predicted;
    EXPECT_EQ(e.fits(), fits) << predicted << " bytes against a limit of 5000";
  }
  e.limit_bytes = 0;
  EXPECT_TRUE(e.fits()) << "unbounded";
  e.device = "cuda:0";
  e.device_capacity_bytes = 8000;
  for (const auto& [predicted, fits] : {std::pair<int64_t, bool>{7999, true}, {8000, true}, {8001, false}}) {
    e.predicted_device_bytes = predicted;
    EXPECT_EQ(e.fits_device(), fits) << predicted << " bytes on a device of 8000";
    EXPECT_EQ(e.fits(), fits);
  }
}
