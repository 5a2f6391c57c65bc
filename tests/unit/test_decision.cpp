// Decisions against the baseline (src/stats/decision.h) and where the price stage makes them:
// exact figures from an independent numpy/scipy reference; the simulated error rates are in
// test_coverage.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "src/stats/decision.h"
#include "pricing/pricing_stage.h"

using namespace pperf;

namespace {
std::vector<double> baseline_rounds() {
  std::vector<double> b;
  for (int j = 0; j < 12; ++j) b.push_back(100 + (j * 7 % 5));
  return b;
}
std::vector<double> candidate_rounds() {
  std::vector<double> c;
  for (int j = 0; j < 12; ++j) c.push_back(90 + (j * 3 % 4) + (j % 2));
  return c;
}
}  // namespace

TEST(Decision, VerdictReadsTheIntervalAgainstZeroAndTheMargin) {
  EXPECT_EQ(verdict_of({-1.9, 1.9}, 2), CostVerdict::equivalent);
  EXPECT_EQ(verdict_of({0.5, 1.5}, 2), CostVerdict::equivalent) << "inside the margin: equivalent, not cheaper";
  EXPECT_EQ(verdict_of({0.5, 2.5}, 2), CostVerdict::cheaper);
  EXPECT_EQ(verdict_of({-7, -2.1}, 2), CostVerdict::dearer);
  EXPECT_EQ(verdict_of({-3, 3}, 2), CostVerdict::undecided);
  EXPECT_EQ(verdict_of({-0.1, 4}, 2), CostVerdict::undecided);
}

TEST(Decision, ImprovementBoundsFromTheLogTimeRatioAndThePriceRatio) {
  const auto b = improvement_bounds({std::log(0.8), std::log(0.9)}, 1.25);
  EXPECT_NEAR(b[0], (1 - 1.25 * 0.9) * 100, 1e-12);
  EXPECT_NEAR(b[1], (1 - 1.25 * 0.8) * 100, 1e-12);
}

TEST(Decision, ConfidenceSequenceOverPairedRoundsMatchesTheReference) {
  const Decision d = decide_interleaved(baseline_rounds(), candidate_rounds(), 1.05, DecisionSettings{}, 2.0);
  EXPECT_EQ(d.method, "confidence sequence over paired rounds");
  EXPECT_EQ(d.looks, 12);
  ASSERT_TRUE(d.improvement_pct_bounds);
  EXPECT_NEAR((*d.improvement_pct_bounds)[0], 3.134543187933647, 1e-8);
  EXPECT_NEAR((*d.improvement_pct_bounds)[1], 7.10220577169417, 1e-8);
  EXPECT_EQ(d.verdict, CostVerdict::cheaper);
  EXPECT_FALSE(d.seconds_to_decide);
  // The same rounds under a price that makes them break even: undecided, with a budget.
  const Decision even = decide_interleaved(baseline_rounds(), candidate_rounds(), 1.107, DecisionSettings{}, 2.0);
  EXPECT_EQ(even.verdict, CostVerdict::undecided);
  EXPECT_TRUE(even.seconds_to_decide && *even.seconds_to_decide > 12) << even.reason;
  // Before the first look: undecided, no interval.
  const std::vector<double> b = baseline_rounds(), c = candidate_rounds();
  const Decision early = decide_interleaved({b.begin(), b.begin() + 7}, {c.begin(), c.begin() + 7}, 1.05, DecisionSettings{});
  EXPECT_EQ(early.verdict, CostVerdict::undecided);
  EXPECT_FALSE(early.improvement_pct_bounds);
}

TEST(Decision, PairedIntervalIsStudentTOverTheRounds) {
  const auto ci = paired_time_ratio_interval(baseline_rounds(), candidate_rounds());
  ASSERT_TRUE(ci);
  EXPECT_NEAR((*ci)[0], 0.8916607776176102, 1e-9);
  EXPECT_NEAR((*ci)[1], 0.9153687285080332, 1e-9);
  EXPECT_FALSE(paired_time_ratio_interval({100}, {90}));
  EXPECT_FALSE(paired_time_ratio_interval({100, 100}, {90, 90})) << "no spread, no interval";
}

TEST(Decision, FixedSampleAndGivenStepTimesLookOnce) {
  const Decision seq = decide_fixed(std::array<double, 2>{0.8, 0.9}, 1.0, DecisionSettings{});
  EXPECT_EQ(seq.method, "fixed-sample interval");
  EXPECT_EQ(seq.looks, 1);
  EXPECT_EQ(seq.verdict, CostVerdict::cheaper);
  EXPECT_NE(seq.reason.find("not cancelled"), std::string::npos);
  const Decision given = decide_fixed(std::array<double, 2>{1.01, 1.01}, 1.0, DecisionSettings{}, true);
  EXPECT_EQ(given.method, "given step times");
  EXPECT_EQ(given.verdict, CostVerdict::equivalent);
  EXPECT_EQ(decide_fixed(std::nullopt, 1.0, DecisionSettings{}).verdict, CostVerdict::undecided);
}

TEST(Decision, ThePriceStageDecidesInTurnsFromTheRoundsAndOtherwiseOnce) {
  // Two configurations that took turns: 12 rounds of 10 steps each, round means as above.
  auto result = [](const std::string& name, bool baseline, const std::vector<double>& rounds) {
    Result r;
    r.workload = "w";
    r.batch_size = 8;
    r.samples_per_step = 8;
    r.configuration = name;
    r.baseline = baseline;
    r.measured = true;
    Measurement m;
    for (double x : rounds)
      for (int i = 0; i < 10; ++i) m.step_ms.push_back(x + (i % 2 ? 0.5 : -0.5));
    m.turns = Turns{Schedule::interleaved, 10, 5, 12, {"base", "cand"}};
    m.elapsed_s = 1.2;
    r.step = StepTimeEstimate{};
    double sum = 0;
    for (double x : m.step_ms) sum += x;
    r.step->mean_ms = r.step->median_ms = sum / static_cast<double>(m.step_ms.size());
    r.measurement = m;
    return r;
  };
  std::vector<Result> results = {result("base", true, baseline_rounds()), result("cand", false, candidate_rounds())};
  PricingInputs inputs;
  inputs.table.name = "t";
  inputs.configurations["base"].instances = {InstanceGroup{"x", 1, "dnn", Market::on_demand, 1.0}};
  inputs.configurations["cand"].instances = {InstanceGroup{"x", 1, "dnn", Market::on_demand, 1.05}};
  price_results(results, inputs);
  EXPECT_FALSE(results[0].decision) << "the baseline is not decided against itself";
  ASSERT_TRUE(results[1].decision);
  EXPECT_EQ(results[1].decision->method, "confidence sequence over paired rounds");
  EXPECT_NEAR((*results[1].decision->improvement_pct_bounds)[0], 3.134543187933647, 1e-8);
  // The improvement's interval is the paired one, not the two means' combined.
  EXPECT_NEAR((*results[1].comparison.improvement_pct_ci95)[0], (1 - 1.05 * 0.9153687285080332) * 100, 1e-7);
  EXPECT_EQ(price_ratios(inputs, "base").at("cand"), 1.05);
  // Measured one after the other: one look at the fixed-sample interval.
  for (auto& r : results) r.measurement->turns = Turns{};
  price_results(results, inputs);
  EXPECT_EQ(results[1].decision->method, "fixed-sample interval");
}
